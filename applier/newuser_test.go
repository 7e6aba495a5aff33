package applier_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// holdTableLock locks table in ACCESS EXCLUSIVE mode in a transaction of
// its own, named by application_name app, as a migration or a maintenance
// script would, until the test ends. It returns the holder's pid.
func (e *env) holdTableLock(table, app string) int {
	e.T.Helper()
	conn, err := e.Pool.Acquire(e.ctx())
	require.NoError(e.T, err)
	tx, err := conn.Begin(e.ctx())
	require.NoError(e.T, err)
	e.T.Cleanup(func() {
		_ = tx.Rollback(context.Background())
		conn.Release()
	})
	_, err = tx.Exec(e.ctx(), `SELECT set_config('application_name', $1, true)`, app)
	require.NoError(e.T, err)
	_, err = tx.Exec(e.ctx(), `LOCK TABLE `+table+` IN ACCESS EXCLUSIVE MODE`)
	require.NoError(e.T, err)
	var pid int
	require.NoError(e.T, tx.QueryRow(e.ctx(), `SELECT pg_backend_pid()`).Scan(&pid))
	return pid
}

// A plan, and an apply, that wait for a lock another session holds on a
// counter's table give up after the lock timeout and name that session:
// its pid, application, the table and the mode it holds.
func TestLockWaitsNameTheHolder(t *testing.T) {
	t.Parallel()
	const timeout = 600 * time.Millisecond
	for _, tc := range []struct {
		name string
		run  func(e *env, desired catalog.State) error
	}{
		{"plan", func(e *env, desired catalog.State) error {
			_, err := reconcile.PlanWithin(e.ctx(), e.Pool, e.Schema, desired, timeout)
			return err
		}},
		{"apply", func(e *env, desired catalog.State) error {
			_, err := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, desired, applier.Options{LockTimeout: timeout})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, app := counterEnv(t)
			table := pgx.Identifier{app, "tasks"}.Sanitize()
			pid := e.holdTableLock(table, "nightly migration")

			start := time.Now()
			err := tc.run(e, withCounters(taskIndex(app)))
			require.Less(t, time.Since(start), 10*time.Second, "gave up after the lock timeout")
			var lwe *applier.LockWaitError
			require.True(t, errors.As(err, &lwe), "got %v", err)
			require.Equal(t, timeout, lwe.Timeout)
			require.Len(t, lwe.Waits, 1, "%v", err)
			w := lwe.Waits[0]
			require.Equal(t, app+".tasks", w.Relation)
			require.Equal(t, "relation", w.LockType)
			require.Len(t, w.Blockers, 1)
			b := w.Blockers[0]
			require.Equal(t, pid, b.PID)
			require.Equal(t, "nightly migration", b.Application)
			require.Equal(t, []string{"AccessExclusiveLock"}, b.Holds)
			require.Equal(t, "idle in transaction", b.State)
			for _, want := range []string{"gave up after 600ms", "table " + app + ".tasks", "nightly migration", "AccessExclusiveLock"} {
				require.Contains(t, err.Error(), want)
			}
			require.Contains(t, err.Error(), "pid "+strconv.Itoa(pid))
		})
	}
}

// A saved plan records the database it was made against; apply refuses it
// in another database, saying so (not that it is stale), and applies a
// plan that records no database (an older pgseq's) as before.
func TestSavedPlanFromAnotherDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(10))
	p, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, config(20))
	require.NoError(t, err)
	require.NotNil(t, p.Database)
	here, err := inspect.ReadDatabase(e.ctx(), e.Pool)
	require.NoError(t, err)
	require.Equal(t, here, p.Database)
	require.NotEmpty(t, here.Name)

	for _, tc := range []struct {
		name     string
		database *plan.Database
		want     string // "" applies
	}{
		{"another cluster", &plan.Database{SystemIdentifier: "1234567", Name: here.Name}, `the plan was made against database "` + here.Name + `" of cluster 1234567`},
		{"another database of the cluster", &plan.Database{SystemIdentifier: here.SystemIdentifier, Name: "elsewhere"}, `database "elsewhere" of cluster ` + here.SystemIdentifier},
		{"cluster unknown, another name", &plan.Database{Name: "elsewhere"}, `database "elsewhere" (cluster not known`},
	} {
		saved := *p
		saved.Database = tc.database
		_, err := reconcile.Apply(e.ctx(), e.Pool, &saved, applier.Options{})
		require.ErrorIs(t, err, reconcile.ErrOtherDatabase, tc.name)
		require.NotErrorIs(t, err, reconcile.ErrStale, tc.name)
		require.Contains(t, err.Error(), tc.want, tc.name)
		require.Contains(t, err.Error(), "but this is "+here.String(), tc.name)
		require.Equal(t, 10, capacitySum(e.slotsOf("render")), "%s: nothing applied", tc.name)
	}

	// An older plan file records no database: the state decides, as before.
	legacy := *p
	legacy.Database = nil
	_, err = reconcile.Apply(e.ctx(), e.Pool, &legacy, applier.Options{})
	require.NoError(t, err)
	require.Equal(t, 20, capacitySum(e.slotsOf("render")))
	_, err = reconcile.Apply(e.ctx(), e.Pool, &legacy, applier.Options{})
	require.ErrorIs(t, err, reconcile.ErrStale)
	require.Contains(t, err.Error(), "does not record which database it was made against")
}

// The database-side checks of a configuration report every problem in one
// run: a counter on a missing table does not hide an unknown role, nor a
// missing prefix_from table the counter's own.
func TestPlanReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	missing := "r" + e.Schema[len(e.Schema)-8:] + "_missing"
	bad := taskIndex(app)
	bad.Table = app + ".nope"
	bad.PrefixFrom = &catalog.PrefixSource{Table: app + ".nope_projects", Column: "key"}
	desired := withCounters(bad)
	desired.Access = []catalog.Grant{{Level: catalog.LevelWork, Role: missing}}

	_, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, desired)
	var cpe *reconcile.CounterProblemsError
	var ape *reconcile.AccessProblemsError
	require.True(t, errors.As(err, &cpe), "%v", err)
	require.True(t, errors.As(err, &ape), "%v", err)
	var attrs []string
	for _, p := range cpe.Problems {
		attrs = append(attrs, p.Attr+": "+p.Summary)
	}
	require.Equal(t, []string{"table: Unknown table", "prefix_from.table: Unknown table"}, attrs)
	require.Len(t, ape.Problems, 1)
	require.Equal(t, missing, ape.Problems[0].Role)
	require.Contains(t, err.Error(), `counter "task_index"`)
	require.Contains(t, err.Error(), `role "`+missing+`"`)
}
