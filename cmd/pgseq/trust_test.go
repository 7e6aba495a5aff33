package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// pgseq apply and pgseq migrate refuse, with exit code 1 and a message
// naming the schema, its owner and the fix, a schema another role owns:
// code that role put there would run with the applying role's rights.
func TestApplyAndMigrateRefuseSchemaOwnedByAnotherRole(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, limit10)).code)

	ctx := context.Background()
	pool := pgtest.Pool(t)
	random := make([]byte, 4)
	_, _ = rand.Read(random) // crypto/rand.Read never fails
	owner := "other_owner_" + hex.EncodeToString(random)
	schema, role := pgx.Identifier{c.Schema}.Sanitize(), pgx.Identifier{owner}.Sanitize()
	_, err := pool.Exec(ctx, `CREATE ROLE `+role+` NOLOGIN`)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// The schema goes first: the role owns it, and it holds objects of
		// others.
		if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE; DROP OWNED BY `+role+`; DROP ROLE `+role); err != nil {
			t.Errorf("dropping test role %s: %v", owner, err)
		}
	})
	_, err = pool.Exec(ctx, `ALTER SCHEMA `+schema+` OWNER TO `+role)
	require.NoError(t, err)

	for _, args := range [][]string{
		{"apply", "--auto-approve", writeConfig(t, limit20)},
		{"migrate"},
	} {
		r := c.run(args...)
		require.Equal(t, exitError, r.code, "%v: %s", args, r.stdout)
		for _, want := range []string{
			`refusing to write to schema "` + c.Schema + `"`,
			`is owned by role "` + owner + `"`,
			`ALTER SCHEMA ` + schema + ` OWNER TO`,
			`Run pgseq as the schema's owner`,
			`Nothing was changed`,
		} {
			require.Contains(t, r.stderr, want, "%v", args)
		}
	}
	var capacity int
	c.Scalar(&capacity, `SELECT sum(capacity) FROM {{schema}}.concurrency_slots`)
	require.Equal(t, 10, capacity, "nothing applied")
	var applies int
	c.Scalar(&applies, `SELECT count(*) FROM {{schema}}.applies`)
	require.Equal(t, 1, applies, "no history row for a refused apply")
}
