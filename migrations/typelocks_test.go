package migrations_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgcode"
	"github.com/pgseq/pgseq/migrations"
)

// holdTypeLocks begins a transaction that takes the advisory locks of types
// in schema as sql does (exclusive: as pgseq apply does), and keeps it open
// until the test ends.
func holdTypeLocks(t *testing.T, r *rt, sql string, types ...string) {
	t.Helper()
	tx, err := r.pool.Begin(bg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	_, err = tx.Exec(bg, migrations.Render(sql, r.schema), types)
	require.NoError(t, err)
}

// tryTypeLocks runs sql (taking type locks) in a transaction of its own that
// gives up after lock_timeout; it returns the error, a lock timeout
// (55P03) when the locks are held elsewhere.
func tryTypeLocks(t *testing.T, r *rt, sql string, types ...string) error {
	t.Helper()
	tx, err := r.pool.Begin(bg)
	require.NoError(t, err)
	defer tx.Rollback(bg) //nolint:errcheck // read-only use
	_, err = tx.Exec(bg, `SET LOCAL lock_timeout = '200ms'`)
	require.NoError(t, err)
	_, err = tx.Exec(bg, migrations.Render(sql, r.schema), types)
	return err
}

func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgcode.LockNotAvailable
}

// A task type's advisory locks are its schema's (version 10): an apply
// holding the locks of "render" in one schema holds back neither the
// admissions nor the completions of "render" in another schema of the same
// database, while it still excludes the runtime of its own schema.
func TestTypeLocksBelongToTheirSchema(t *testing.T) {
	t.Parallel()
	a := newRT(t, state(queueCfg("q"), task("render", 2)))
	b := newRT(t, state(queueCfg("q"), task("render", 2)))
	holdTypeLocks(t, a, `SELECT {{schema}}.lock_types($1, true)`, "render")

	// Schema b: completions take the lock shared, claims admit.
	require.NoError(t, tryTypeLocks(t, b, `SELECT {{schema}}.lock_types($1)`, "render"))
	require.NoError(t, tryTypeLocks(t, b, `SELECT {{schema}}.lock_admission($1)`, "render"))
	b.register("w")
	b.enqueueN("render", 3)
	ids, err := claim(bg, b.pool, b.schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, ids, 2, "the limit admits 2 in schema b while schema a's apply holds its own render")

	// Schema a: its own runtime waits for the apply.
	err = tryTypeLocks(t, a, `SELECT {{schema}}.lock_types($1)`, "render")
	require.True(t, isLockTimeout(err), "the runtime of schema a waits for its apply: %v", err)
}

// While an upgrade to version 10 commits, a runtime session may still hold a
// type's lock under the old key (the name alone): an apply on the new
// definitions waits for it too.
func TestApplyExcludesRuntimeOnTheOldKey(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("render", 2)))
	holdTypeLocks(t, r, `SELECT pg_advisory_xact_lock_shared(1885827953, hashtext(($1::text[])[1]))`, "render")
	err := tryTypeLocks(t, r, `SELECT {{schema}}.lock_types($1, true)`, "render")
	require.True(t, isLockTimeout(err), "the apply waits for the session on the old key: %v", err)
	// The runtime on the new definitions does not: shared locks, other keys.
	require.NoError(t, tryTypeLocks(t, r, `SELECT {{schema}}.lock_types($1)`, "render"))
}
