package applier_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// appSchema makes an empty application schema beside the test's pgseq
// schema and returns its name.
func (e *env) appSchema() string {
	e.T.Helper()
	app := "a" + e.Schema[1:] // t_… → a_…: as long as the schema name, so never cut at 63 bytes
	e.Exec(`CREATE SCHEMA ` + pgx.Identifier{app}.Sanitize())
	e.T.Cleanup(func() { _, _ = e.Pool.Exec(e.ctx(), `DROP SCHEMA `+pgx.Identifier{app}.Sanitize()+` CASCADE`) })
	return app
}

// numbersByScope returns the numbers of table's column per scope (the
// empty string without a scope), sorted.
func (e *env) numbersByScope(table, scopeExpr string) map[string][]int64 {
	e.T.Helper()
	rows, err := e.Pool.Query(e.ctx(), fmt.Sprintf(`SELECT %s, index FROM %s`, scopeExpr, table))
	require.NoError(e.T, err)
	out := map[string][]int64{}
	var scope string
	var n *int64
	_, err = pgx.ForEachRow(rows, []any{&scope, &n}, func() error {
		require.NotNil(e.T, n, "a row of %s without a number in scope %q", table, scope)
		out[scope] = append(out[scope], *n)
		return nil
	})
	require.NoError(e.T, err)
	for _, vs := range out {
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	}
	return out
}

// requireRun requires vs to be exactly from..from+len(vs)-1.
func requireRun(t *testing.T, vs []int64, from int64, what string) {
	t.Helper()
	for i, v := range vs {
		require.Equal(t, from+int64(i), v, "%s: numbers %v are not gapless from %d", what, vs, from)
	}
}

// TestAttachToEmptyAndUnnumberedTables attaches an unscoped and a scoped
// counter to an empty table, to one whose column is all NULL and to one
// with numbered and NULL rows mixed: every row ends up numbered, gapless
// per scope, later inserts continue the run, and the plan said how many
// rows would be numbered.
func TestAttachToEmptyAndUnnumberedTables(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// rows inserted before the counter is attached: (scope, index or NULL)
		seed string
		// rows the plan must say it numbers
		unnumbered int64
		// numbers per scope expected after the attach and two inserts in
		// scope 1 (scoped) or two inserts (unscoped)
		want map[string][]int64
	}{
		{name: "empty", seed: "", unnumbered: 0,
			want: map[string][]int64{"1": {10, 11}}},
		{name: "all NULL", seed: "(1, NULL), (1, NULL), (2, NULL)", unnumbered: 3,
			want: map[string][]int64{"1": {10, 11, 12, 13}, "2": {10}}},
		{name: "mixed", seed: "(1, 10), (1, NULL), (1, 11), (2, NULL), (2, 12), (3, NULL)", unnumbered: 3,
			want: map[string][]int64{"1": {10, 11, 12, 13, 14}, "2": {12, 13}, "3": {10}}},
	}
	for _, tc := range cases {
		for _, scoped := range []bool{false, true} {
			for _, strategy := range []string{catalog.StrategyCounterTable, catalog.StrategyAdvisoryLock} {
				name := fmt.Sprintf("%s/scoped=%v/%s", tc.name, scoped, strategy)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					e := newEnv(t)
					app := e.appSchema()
					table := pgx.Identifier{app, "items"}.Sanitize()
					e.Exec(`CREATE TABLE ` + table + ` (id bigserial PRIMARY KEY, project_id bigint, index bigint)`)
					if tc.seed != "" {
						e.Exec(`INSERT INTO ` + table + ` (project_id, index) VALUES ` + tc.seed)
					}
					k := catalog.Counter{Name: "item_number", Table: app + ".items", Column: "index",
						Start: 10, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: strategy}
					scopeExpr := `''`
					if scoped {
						k.Scope = []string{"project_id"}
						scopeExpr = `project_id::text`
					}
					desired := withCounters(k)

					p := e.plan(desired)
					require.Len(t, p.Changes, 2, "the default queue and the counter")
					c := p.Changes[1]
					require.Equal(t, plan.Create, c.Action)
					reasons := strings.Join(c.Reasons, "; ")
					if tc.unnumbered > 0 {
						require.NotNil(t, c.Context)
						require.NotNil(t, c.Context.Unnumbered)
						require.Equal(t, tc.unnumbered, *c.Context.Unnumbered)
						require.Contains(t, reasons, fmt.Sprintf("%d rows without a number (index is NULL) are numbered", tc.unnumbered))
					} else {
						require.NotContains(t, reasons, "without a number")
					}

					e.apply(desired)
					for i := 0; i < 2; i++ {
						e.Exec(`INSERT INTO ` + table + ` (project_id) VALUES (1)`)
					}
					got := e.numbersByScope(table, scopeExpr)
					if !scoped {
						var all []int64
						for _, vs := range tc.want {
							all = append(all, vs...)
						}
						requireRun(t, got[""], 10, "unscoped")
						require.Len(t, got[""], len(all))
						return
					}
					require.Equal(t, tc.want, got)
				})
			}
		}
	}
}

// TestAttachRefusesRowsWithoutScope: rows whose scope column is NULL cannot
// be numbered; the plan says so and the apply refuses with the count,
// changing nothing.
func TestAttachRefusesRowsWithoutScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	app := e.appSchema()
	table := pgx.Identifier{app, "items"}.Sanitize()
	e.Exec(`CREATE TABLE ` + table + ` (id bigserial PRIMARY KEY, project_id bigint, index bigint)`)
	e.Exec(`INSERT INTO ` + table + ` (project_id, index) VALUES (1, 1), (NULL, NULL), (NULL, 7)`)
	k := catalog.Counter{Name: "item_number", Table: app + ".items", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable}

	p := e.plan(withCounters(k))
	require.Contains(t, strings.Join(p.Changes[1].Reasons, "; "), "2 rows have a NULL scope (project_id): apply refuses")
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test", Version: "test"})
	require.ErrorContains(t, err, "has 2 rows with a NULL scope column (project_id)")
	require.Empty(t, e.state().Queues, "nothing applied")
	var unnumbered int
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `SELECT count(*) FROM `+table+` WHERE index IS NULL`).Scan(&unnumbered))
	require.Equal(t, 1, unnumbered, "no row numbered")
}

// TestAttachedCounterExplicitValue: an INSERT that gives the numbered column
// a value is refused (PS028) unless it is exactly the next number, and the
// refused statement burns no number.
func TestAttachedCounterExplicitValue(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.apply(withCounters(taskIndex(app)))
	tasks := pgx.Identifier{app, "tasks"}.Sanitize()

	_, err := e.Pool.Exec(e.ctx(), `INSERT INTO `+tasks+` (project_id, index) VALUES (1, 42)`)
	requireSQLState(t, err, "PS028")
	require.ErrorContains(t, err, "the INSERT gave 42, the next number is 6")

	var got int64
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `INSERT INTO `+tasks+` (project_id, index) VALUES (1, 6) RETURNING index`).Scan(&got))
	require.EqualValues(t, 6, got, "exactly the next number is kept")
	require.EqualValues(t, 7, e.insertTask(app, 1), "the refused insert burned no number")
}

// TestOldTriggerIsRepaired: a trigger function made by an older pgseq
// (without the current generation marker) shows as drift and is replaced.
func TestOldTriggerIsRepaired(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	e.apply(withCounters(taskIndex(app)))
	obj := catalog.ObjectsFor(e.Schema, "task_index")
	fn := pgx.Identifier{e.Schema, obj.Function}.Sanitize()
	e.Exec(`CREATE OR REPLACE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`)

	p := e.plan(withCounters(taskIndex(app)))
	require.Equal(t, 1, p.Summary.Change)
	require.Contains(t, strings.Join(p.Changes[0].Reasons, " "), "made by an older pgseq")
	e.apply(withCounters(taskIndex(app)))
	require.EqualValues(t, 6, e.insertTask(app, 1))
}
