package counter_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/counter"
	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// env is a test's pgseq schema, an app schema beside it ({{app}} in
// statements), and a client.
type env struct {
	*pgseqtest.DB
	app string // the application's schema
	c   *counter.Client
}

var bg = context.Background()

func newEnv(t testing.TB) *env {
	t.Helper()
	d := pgseqtest.New(t)
	app := "a" + d.Schema[1:] // t_… → a_…: as long as the schema name, so never cut at 63 bytes
	e := &env{DB: d.With("{{app}}", pgx.Identifier{app}.Sanitize()), app: app, c: counter.New(d.Schema)}
	e.Exec(`CREATE SCHEMA {{app}}`)
	t.Cleanup(func() { _, _ = e.Pool.Exec(bg, e.SQL(`DROP SCHEMA {{app}} CASCADE`)) })
	return e
}

// apply declares exactly these counters (and the default queue), applies
// them, and requires that planning again gives an empty plan.
func (e *env) apply(cs ...catalog.Counter) {
	e.T.Helper()
	pgseqtest.Apply(e.T, e.Pool, e.Schema, counters(cs...))
}

// counters is a configuration of exactly these counters and the default
// queue.
func counters(cs ...catalog.Counter) catalog.State {
	return catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}, Counters: cs}
}

// ownPool opens a pool of its own, for tests that terminate backends or
// need many connections at once.
func (e *env) ownPool(size int) *pgxpool.Pool {
	e.T.Helper()
	cfg, err := dbconn.ParseConfig(pgtest.ConnString(e.T), "pgseq counter test")
	require.NoError(e.T, err)
	cfg.MaxConns = int32(size)
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	p, err := dbconn.ConnectConfig(ctx, cfg)
	require.NoError(e.T, err)
	e.T.Cleanup(p.Close)
	return p
}

// standalone is a standalone counter starting at start.
func standalone(name string, start int64) catalog.Counter {
	return catalog.Counter{Name: name, Start: start, LockTimeout: catalog.DefaultCounterLockTimeout}
}

// attached numbers {{app}}.<table>.index per project_id.
func (e *env) attached(name, table string, start int64, strategy string) catalog.Counter {
	return catalog.Counter{
		Name: name, Table: e.app + "." + table, Column: "index", Scope: []string{"project_id"},
		Start: start, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: strategy,
	}
}

// requireGapless requires that, per scope, the values are exactly
// start..start+n-1 and returns the number of values per scope.
func requireGapless(t testing.TB, values map[string][]int64, start int64) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for scope, vs := range values {
		vs = slices.Clone(vs)
		slices.Sort(vs)
		for i, v := range vs {
			if v != start+int64(i) {
				want := start + int64(i)
				kind := "gap"
				if v < want {
					kind = "duplicate"
				}
				require.Failf(t, "not gapless", "scope %q: %s at position %d: want %d, got %d (values %v)", scope, kind, i, want, v, clip(vs))
			}
		}
		counts[scope] = len(vs)
	}
	return counts
}

func clip(vs []int64) string {
	if len(vs) > 40 {
		return fmt.Sprintf("%v … %v", vs[:20], vs[len(vs)-20:])
	}
	return fmt.Sprint(vs)
}

// valuesByScope reads scope → values from a query returning (scope text, value bigint).
func (e *env) valuesByScope(sql string) map[string][]int64 {
	e.T.Helper()
	rows, err := e.Pool.Query(bg, e.SQL(sql))
	require.NoError(e.T, err)
	out := map[string][]int64{}
	for rows.Next() {
		var s string
		var v int64
		require.NoError(e.T, rows.Scan(&s, &v))
		out[s] = append(out[s], v)
	}
	require.NoError(e.T, rows.Err())
	return out
}

// counterValues reads scope → last value issued for a counter.
func (e *env) counterValues(name string) map[string]int64 {
	e.T.Helper()
	rows, err := e.Pool.Query(bg, e.SQL(`SELECT scope, value FROM {{schema}}.counter_values WHERE counter = $1`), name)
	require.NoError(e.T, err)
	out := map[string]int64{}
	for rows.Next() {
		var s string
		var v int64
		require.NoError(e.T, rows.Scan(&s, &v))
		out[s] = v
	}
	require.NoError(e.T, rows.Err())
	return out
}
