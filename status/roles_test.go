package status

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// loginRole creates a login role for one test (dropped when it ends) and
// returns a pool connected as it.
func loginRole(t *testing.T, e *env, suffix string) (string, *pgxpool.Pool) {
	t.Helper()
	name := "r" + e.schema[len(e.schema)-8:] + "_" + suffix
	q := pgx.Identifier{name}.Sanitize()
	_, err := e.pool.Exec(bg, "CREATE ROLE "+q+" LOGIN PASSWORD 'status-test'")
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.pool.Exec(ctx, "DROP OWNED BY "+q+"; DROP ROLE "+q); err != nil {
			t.Errorf("dropping test role %s: %v", name, err)
		}
	})
	cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	cfg.ConnConfig.User, cfg.ConnConfig.Password = name, "status-test"
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close) // before the role is dropped
	return name, pool
}

// pgseq status works for a role given the read level, and for a role
// without it says which level to grant.
func TestReadNeedsTheReadLevel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `queue "default" {}`)
	reader, readerPool := loginRole(t, e, "reader")
	worker, workerPool := loginRole(t, e, "worker")
	e.apply(fmt.Sprintf(`
queue "default" {}
access {
  read = [%q]
  work = [%q]
}`, reader, worker))

	s, err := Read(bg, readerPool, e.schema, Options{})
	require.NoError(t, err)
	require.Equal(t, e.schema, s.Schema)

	_, err = Read(bg, workerPool, e.schema, Options{})
	require.ErrorContains(t, err, "permission denied")
	require.ErrorContains(t, err, "it needs the read level for this role")
}
