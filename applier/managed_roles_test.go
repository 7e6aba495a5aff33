package applier_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/reconcile"
)

// A managed database's usual set-up: a schema made by an administrator and
// owned by the applying role, which may not CREATE in the database. The
// first apply creates pgseq's tables in it.
func TestFirstApplyInASchemaMadeForARoleWithoutDatabaseCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.newRole("owner")
	ctx := context.Background()
	_, err := e.Pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{e.Schema}.Sanitize()+" AUTHORIZATION "+pgx.Identifier{owner.Name}.Sanitize())
	require.NoError(t, err)
	as := poolAs(t, owner)
	var canCreate bool
	require.NoError(t, as.QueryRow(ctx, `SELECT has_database_privilege(current_database(), 'CREATE')`).Scan(&canCreate))
	require.False(t, canCreate, "the role must not have CREATE on the database for this test")

	res, err := reconcile.PlanAndApply(ctx, as, e.Schema, config(4), applier.Options{Client: "test", Version: "test"}, nil)
	require.NoError(t, err)
	require.Len(t, res.Migrated, migrations.Latest())
	p, err := reconcile.Plan(ctx, as, e.Schema, config(4))
	require.NoError(t, err)
	require.True(t, p.Empty())
}

// holdApplyLock holds schema's apply lock in a transaction of pool until
// the returned function is called.
func holdApplyLock(t *testing.T, pool *pgxpool.Pool, schema string) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, applier.LockKey(schema))
	require.NoError(t, err)
	done := false
	release = func() {
		if !done {
			done = true
			require.NoError(t, tx.Rollback(ctx))
		}
	}
	t.Cleanup(release)
	return release
}

// The apply lock held by another role's session, which this role may not
// see the times of: the holder is still named.
func TestApplyLockHolderOfAnotherRoleIsNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(4))
	holder, applying := e.newRole("holder"), e.newRole("applying")
	holdApplyLock(t, poolAs(t, holder), e.Schema)

	// Any role may wait for the lock: the applying role needs no privilege
	// on the schema to be told who holds it.
	_, err := applier.Migrate(context.Background(), poolAs(t, applying), e.Schema, 200*time.Millisecond)
	var lt *applier.LockTimeoutError
	require.True(t, errors.As(err, &lt), "want a *LockTimeoutError, got %v", err)
	require.Len(t, lt.Holders, 1)
	require.Equal(t, holder.Name, lt.Holders[0].User)
	require.Contains(t, err.Error(), fmt.Sprintf("user %q", holder.Name))
	require.Contains(t, err.Error(), "since a time this role may not see")
}

// A role's statement_timeout shorter than pgseq's lock timeout does not cut
// pgseq's wait for the apply lock short.
func TestShortStatementTimeoutDoesNotCutTheLockWait(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(4))
	cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "200ms" // as ALTER ROLE … SET statement_timeout would
	cfg.MaxConns = 4
	short, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(short.Close)

	release := holdApplyLock(t, e.Pool, e.Schema)
	go func() {
		time.Sleep(700 * time.Millisecond)
		release()
	}()
	start := time.Now()
	_, err = reconcile.PlanAndApply(context.Background(), short, e.Schema, config(5), applier.Options{Client: "test", Version: "test", LockTimeout: 5 * time.Second}, nil)
	require.NoError(t, err, "the wait for the apply lock is bounded by the lock timeout, not the role's statement_timeout")
	require.GreaterOrEqual(t, time.Since(start), 600*time.Millisecond, "it waited for the holder")
}

// A counter on a table another role owns is a plan error naming the grant,
// not an apply that fails with "must be owner of table".
func TestPlanRefusesACounterOnATableTheRoleDoesNotOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, applying := e.newRole("tabowner"), e.newRole("applying")
	ctx := context.Background()
	app := e.appSchema()
	table := pgx.Identifier{app, "items"}.Sanitize()
	e.Exec(`CREATE TABLE ` + table + ` (id bigserial PRIMARY KEY, index bigint)`)
	e.Exec(`ALTER TABLE ` + table + ` OWNER TO ` + pgx.Identifier{owner.Name}.Sanitize())
	e.Exec(`GRANT USAGE ON SCHEMA ` + pgx.Identifier{app}.Sanitize() + ` TO ` + pgx.Identifier{applying.Name}.Sanitize())
	e.Exec(`GRANT SELECT ON ` + table + ` TO ` + pgx.Identifier{applying.Name}.Sanitize()) // it may read the table, not change it
	e.Exec(`CREATE SCHEMA ` + pgx.Identifier{e.Schema}.Sanitize() + ` AUTHORIZATION ` + pgx.Identifier{applying.Name}.Sanitize())
	k := catalog.Counter{Name: "item_number", Table: app + ".items", Column: "index",
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable}
	as := poolAs(t, applying)

	_, err := reconcile.Plan(ctx, as, e.Schema, withCounters(k))
	var cpe *reconcile.CounterProblemsError
	require.True(t, errors.As(err, &cpe), "want a *CounterProblemsError, got %v", err)
	require.Len(t, cpe.Problems, 2, "every problem at once")
	require.Equal(t, "Table owned by another role", cpe.Problems[0].Summary)
	require.Contains(t, cpe.Problems[0].Detail, fmt.Sprintf("GRANT %q TO %q", owner.Name, applying.Name))
	require.Equal(t, "No CREATE on the table's schema", cpe.Problems[1].Summary)
	require.Contains(t, cpe.Problems[1].Detail, fmt.Sprintf("GRANT CREATE ON SCHEMA %s TO %q", app, applying.Name))

	e.Exec(`GRANT ` + pgx.Identifier{owner.Name}.Sanitize() + ` TO ` + pgx.Identifier{applying.Name}.Sanitize())
	e.Exec(`GRANT CREATE ON SCHEMA ` + pgx.Identifier{app}.Sanitize() + ` TO ` + pgx.Identifier{applying.Name}.Sanitize())
	_, err = reconcile.PlanAndApply(ctx, as, e.Schema, withCounters(k), applier.Options{Client: "test", Version: "test"}, nil)
	require.NoError(t, err, "a member of the owner's role attaches it")

	// Detaching it (deleting the counter) drops its trigger and index: the
	// owner's again, checked at plan time too.
	e.Exec(`REVOKE ` + pgx.Identifier{owner.Name}.Sanitize() + ` FROM ` + pgx.Identifier{applying.Name}.Sanitize())
	_, err = reconcile.Plan(ctx, as, e.Schema, withCounters())
	require.True(t, errors.As(err, &cpe), "want a *CounterProblemsError, got %v", err)
	require.Len(t, cpe.Problems, 1)
	require.Equal(t, "Table owned by another role", cpe.Problems[0].Summary)
	require.Contains(t, cpe.Problems[0].Detail, `pgseq apply detaches counter "item_number" from `+app+`.items`)
	require.Contains(t, cpe.Problems[0].Detail, fmt.Sprintf("GRANT %q TO %q", owner.Name, applying.Name))
}

// pgseq plan needs no more than the read level: a role given it plans an
// unchanged configuration (empty) and a change (shown), and cannot apply it.
func TestPlanRunsAsTheReadLevel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reader := e.newRole("reader")
	desired := withAccess(catalog.Grant{Level: catalog.LevelRead, Role: reader.Name})
	e.apply(desired)
	as := poolAs(t, reader)
	ctx := context.Background()

	p, err := reconcile.Plan(ctx, as, e.Schema, desired)
	require.NoError(t, err, "plan as the read level")
	require.True(t, p.Empty(), "%+v", p.Changes)
	changed := desired
	changed.TaskTypes = append([]catalog.TaskType(nil), desired.TaskTypes...)
	changed.TaskTypes[0].Concurrency++
	p, err = reconcile.Plan(ctx, as, e.Schema, changed)
	require.NoError(t, err)
	require.Equal(t, 1, p.Summary.Change)

	_, err = reconcile.PlanAndApply(ctx, as, e.Schema, changed, applier.Options{Client: "test", Version: "test", LockTimeout: time.Second}, nil)
	require.Error(t, err, "the read level cannot apply")
}
