package applier_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// counterEnv makes an app schema with projects and tasks (rows already
// numbered by hand) beside the test's pgseq schema.
func counterEnv(t *testing.T) (*env, string) {
	e := newEnv(t)
	app := e.Schema + "_app"
	e.Exec(`CREATE SCHEMA "` + app + `"`)
	t.Cleanup(func() { _, _ = e.Pool.Exec(e.ctx(), `DROP SCHEMA "`+app+`" CASCADE`) })
	e.Exec(`CREATE TABLE "` + app + `".projects (id bigint PRIMARY KEY, key text NOT NULL UNIQUE)`)
	e.Exec(`CREATE TABLE "` + app + `".tasks (id bigserial PRIMARY KEY, project_id bigint REFERENCES "` + app + `".projects, index bigint, title text)`)
	e.Exec(`INSERT INTO "` + app + `".projects VALUES (1, 'PROJ'), (2, 'ENG'), (3, 'OPS')`)
	e.Exec(`INSERT INTO "` + app + `".tasks (project_id, index, title)
	        SELECT 1, g, 'old' FROM generate_series(1, 5) g UNION ALL SELECT 2, g, 'old' FROM generate_series(1, 3) g`)
	return e, app
}

func taskIndex(app string) catalog.Counter {
	return catalog.Counter{
		Name: "task_index", Table: app + ".tasks", Column: "index", Scope: []string{"project_id"},
		PrefixFrom: &catalog.PrefixSource{Table: app + ".projects", Column: "key"},
		Start:      1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
	}
}

func invoices() catalog.Counter {
	return catalog.Counter{Name: "invoice_number", Prefix: "INV", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout,
		IdempotencyWindow: catalog.Duration(600e9)}
}

func withCounters(cs ...catalog.Counter) catalog.State {
	return catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}, Counters: cs}
}

func (e *env) insertTask(app string, project int) int64 {
	e.T.Helper()
	var index int64
	require.NoError(e.T, e.Pool.QueryRow(e.ctx(), `INSERT INTO "`+app+`".tasks (project_id, title) VALUES ($1, 'new') RETURNING index`, project).Scan(&index))
	return index
}

func TestAttachedCounterBackfillsAndNumbers(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	p := e.apply(withCounters(taskIndex(app)))
	require.Equal(t, 2, p.Summary.Add)

	require.EqualValues(t, 6, e.insertTask(app, 1), "continues after the backfilled maximum")
	require.EqualValues(t, 4, e.insertTask(app, 2))
	require.EqualValues(t, 1, e.insertTask(app, 3), "a new scope starts at start")
	require.EqualValues(t, 7, e.insertTask(app, 1))

	// A rolled-back insert gives its number back.
	tx, err := e.Pool.Begin(e.ctx())
	require.NoError(t, err)
	_, err = tx.Exec(e.ctx(), `INSERT INTO "`+app+`".tasks (project_id) VALUES (1)`)
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(e.ctx()))
	require.EqualValues(t, 8, e.insertTask(app, 1))

	// Context in the plan: scopes and the highest value issued.
	changed := taskIndex(app)
	changed.LockTimeout = catalog.Duration(2e9)
	p = e.plan(withCounters(changed))
	require.Equal(t, 1, p.Summary.Change)
	require.EqualValues(t, 3, *p.Changes[0].Context.Scopes)
	require.EqualValues(t, 8, *p.Changes[0].Context.MaxValue)
	e.apply(withCounters(changed))
	require.EqualValues(t, 9, e.insertTask(app, 1))
}

func TestCounterDriftIsRepaired(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.apply(withCounters(taskIndex(app)))
	obj := catalog.ObjectsFor(e.Schema, "task_index")

	e.Exec(`ALTER TABLE "` + app + `".tasks DISABLE TRIGGER "` + obj.Trigger + `"`)
	p := e.plan(withCounters(taskIndex(app)))
	require.Equal(t, 1, p.Summary.Change, "a disabled trigger is drift")
	require.Contains(t, strings.Join(p.Changes[0].Reasons, " "), "trigger missing or disabled")
	e.apply(withCounters(taskIndex(app)))
	require.EqualValues(t, 6, e.insertTask(app, 1))

	e.Exec(`DROP TRIGGER "` + obj.Trigger + `" ON "` + app + `".tasks`)
	require.Equal(t, 1, e.plan(withCounters(taskIndex(app))).Summary.Change, "a dropped trigger is drift")
	e.apply(withCounters(taskIndex(app)))
	require.EqualValues(t, 7, e.insertTask(app, 1))
}

func TestCounterRefusesDuplicateRows(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.Exec(`INSERT INTO "` + app + `".tasks (project_id, index) VALUES (1, 3)`)
	p := e.plan(withCounters(taskIndex(app)))
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorContains(t, err, "same (project_id, index) = (1, 3)")
	require.Empty(t, e.state().Counters, "nothing applied")
}

func TestCounterDeleteAndLowerNeedPermission(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.apply(withCounters(taskIndex(app), invoices()))
	var v int64
	for i := 0; i < 3; i++ {
		require.NoError(t, e.Pool.QueryRow(e.ctx(), e.SQL(`SELECT {{schema}}.next_value('invoice_number')`)).Scan(&v))
	}
	require.EqualValues(t, 1002, v)

	// Lowering start below what was issued is destructive.
	lowered := invoices()
	lowered.Start = 500
	p := e.plan(withCounters(taskIndex(app), lowered))
	require.True(t, p.Changes[0].Destructive)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)

	// Raising start jumps existing scopes up.
	raised := invoices()
	raised.Start = 5000
	e.apply(withCounters(taskIndex(app), raised))
	require.NoError(t, e.Pool.QueryRow(e.ctx(), e.SQL(`SELECT {{schema}}.next_value('invoice_number')`)).Scan(&v))
	require.EqualValues(t, 5000, v)

	// Deleting a counter is destructive.
	p = e.plan(withCounters(raised))
	require.Equal(t, plan.Summary{Destroy: 1}, p.Summary)
	_, err = reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)
	_, err = reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{AllowDestroy: true})
	require.NoError(t, err)
	require.True(t, e.plan(withCounters(raised)).Empty())
	var idx *int64
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `INSERT INTO "`+app+`".tasks (project_id) VALUES (1) RETURNING index`).Scan(&idx))
	require.Nil(t, idx, "the trigger is gone; the rows keep their numbers")
}

func TestAttachedCounterRewindNeverBelowTable(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	high := taskIndex(app)
	high.Start = 100
	e.apply(withCounters(high))
	require.EqualValues(t, 100, e.insertTask(app, 3), "new scope starts at 100")
	require.EqualValues(t, 6, e.insertTask(app, 1), "existing scope continues from its rows")

	low := taskIndex(app)
	low.Start = 1
	p := e.plan(withCounters(low))
	require.True(t, p.Changes[0].Destructive)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{AllowDestroy: true})
	require.NoError(t, err)
	require.EqualValues(t, 101, e.insertTask(app, 3), "rewound, but never below the table's highest value")
	require.EqualValues(t, 7, e.insertTask(app, 1))
}

func TestCounterValuesAreProtected(t *testing.T) {
	t.Parallel()
	e, _ := counterEnv(t)
	e.apply(withCounters(invoices()))
	var v int64
	require.NoError(t, e.Pool.QueryRow(e.ctx(), e.SQL(`SELECT {{schema}}.next_value('invoice_number')`)).Scan(&v))
	for _, q := range []string{
		`DELETE FROM {{schema}}.counter_values`,
		`UPDATE {{schema}}.counter_values SET value = value - 1`,
		`TRUNCATE {{schema}}.counter_values CASCADE`,
	} {
		_, err := e.Pool.Exec(e.ctx(), e.SQL(q))
		requireSQLState(t, err, "PS020")
	}
	_, err := e.Pool.Exec(e.ctx(), e.SQL(`UPDATE {{schema}}.counter_values SET value = value + 10`))
	require.NoError(t, err, "raising (skipping ahead) is allowed")

	// A counter with a constant prefix has one numbering: no scopes.
	_, err = e.Pool.Exec(e.ctx(), e.SQL(`SELECT {{schema}}.next_value('invoice_number', 'eu')`))
	requireSQLState(t, err, "PS022")
	_, err = e.Pool.Exec(e.ctx(), e.SQL(`SELECT {{schema}}.reserve('invoice_number', 'eu', 'k1')`))
	requireSQLState(t, err, "PS022")
}

func requireSQLState(t *testing.T, err error, code string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "want SQLSTATE %s, got %v", code, err)
	require.Equal(t, code, pgErr.Code, pgErr.Message)
}

func TestResolveKey(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.apply(withCounters(taskIndex(app), invoices()))
	e.insertTask(app, 1) // PROJ-6
	var id42 int64
	for i := 0; i < 40; i++ {
		e.insertTask(app, 2)
	}
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `SELECT id FROM "`+app+`".tasks WHERE project_id = 2 AND index = 42`).Scan(&id42))
	var v int64
	require.NoError(t, e.Pool.QueryRow(e.ctx(), e.SQL(`SELECT {{schema}}.next_value('invoice_number')`)).Scan(&v))

	type res struct {
		Counter, Scope string
		Number         int64
		RowID          *string
	}
	resolve := func(key string) ([]res, error) {
		rows, err := e.Pool.Query(e.ctx(), e.SQL(`SELECT * FROM {{schema}}.resolve_key($1)`), key)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowToStructByPos[res])
	}
	ok := func(key string, want res) {
		t.Helper()
		got, err := resolve(key)
		require.NoError(t, err, key)
		require.Equal(t, []res{want}, got, key)
	}
	fails := func(key, code string) {
		t.Helper()
		_, err := resolve(key)
		requireSQLState(t, err, code)
	}
	rowID := func(id int64) *string { s := itoa(id); return &s }

	ok("ENG-42", res{"task_index", "2", 42, rowID(id42)})
	ok("eng-42", res{"task_index", "2", 42, rowID(id42)})
	ok("  Eng-42 \n", res{"task_index", "2", 42, rowID(id42)})
	ok("ENG-00042", res{"task_index", "2", 42, rowID(id42)})
	ok("INV-1000", res{"invoice_number", "", 1000, nil})
	ok("inv-1000", res{"invoice_number", "", 1000, nil})
	ok(itoa(id42), res{"task_index", "2", 42, rowID(id42)})
	fails("PROJ-42", "PS012") // PROJ has 6 tasks
	fails("PROJ-0", "PS012")
	fails("INV-1001", "PS012") // not issued yet
	fails("NOPE-1", "PS010")
	fails("PROJ-99999999999999999999", "PS011")
	fails("PROJ-12a", "PS011")
	fails("PROJ-", "PS011")
	fails("", "PS011")
	fails("hello world", "PS012")
	fails("!!!", "PS012")
	fails("999999999", "PS012")
	fails("v-1", "PS010") // no letter is trimmed as whitespace
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
