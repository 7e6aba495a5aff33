package counter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// Migration 011: a transaction that takes many numbers pays the same for
// each (increment_value writes the scope's row through the ctid it wrote
// last, remembered in a transaction-local setting), with every guarantee
// kept. The attached counter here is numbered by the trigger pgseq apply
// generates (version 4: the scope's advisory lock, then increment_value).

// numberItems creates {{app}}.items, numbered per project_id by the
// attached counter item_index that linearEnv applies.
func (e *env) numberItems() {
	e.T.Helper()
	e.Exec(`CREATE TABLE {{app}}.items (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint,
	        UNIQUE (project_id, index))`)
}

// requireIssued requires that the committed items and ledger entries are
// gapless from 1 per scope, and that the counter rows of item_index and
// entry_number hold each scope's highest value.
func (e *env) requireIssued() {
	e.T.Helper()
	for name, sql := range map[string]string{
		"item_index":   `SELECT project_id::text, index FROM {{app}}.items`,
		"entry_number": `SELECT scope, value FROM {{app}}.ledger`,
	} {
		got := requireGapless(e.T, e.valuesByScope(sql), 1)
		want := map[string]int64{}
		for scope, n := range got {
			want[scope] = int64(n)
		}
		require.Equal(e.T, want, e.counterValues(name), "counter rows of %s", name)
	}
}

// linearEnv declares the counters of these tests: item_index, attached to
// {{app}}.items (numberItems), and entry_number, whose numbers a ledger
// records.
func linearEnv(t *testing.T) *env {
	e := newEnv(t)
	e.numberItems()
	e.apply(e.attached("item_index", "items", 1, catalog.StrategyCounterTable), standalone("entry_number", 1))
	e.Exec(`CREATE TABLE {{app}}.ledger (scope text NOT NULL, value bigint NOT NULL, UNIQUE (scope, value))`)
	return e
}

const (
	insertItems = `INSERT INTO {{app}}.items (project_id) SELECT $1::bigint FROM generate_series(1, $2)`
	takeEntries = `INSERT INTO {{app}}.ledger (scope, value)
	               SELECT $1, {{schema}}.next_value('entry_number', $1) FROM generate_series(1, $2)`
)

// A savepoint rolled back returns the numbers taken since, even after the
// transaction took many numbers of the scope before it (the remembered row
// version is then one the rollback removed), and a scope first numbered
// inside the savepoint starts over.
func TestCounterSavepointRollbackReturnsNumbers(t *testing.T) {
	t.Parallel()
	e := linearEnv(t)
	tx, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	defer tx.Rollback(bg) //nolint:errcheck // no-op after commit
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := tx.Exec(bg, e.SQL(sql), args...)
		require.NoError(t, err, sql)
	}
	exec(insertItems, 1, 300)
	exec(takeEntries, "a", 300)
	exec(`SAVEPOINT s`)
	exec(insertItems, 1, 200)
	exec(insertItems, 2, 50)
	exec(takeEntries, "a", 200)
	exec(takeEntries, "b", 50)
	exec(`ROLLBACK TO SAVEPOINT s`)
	exec(insertItems, 1, 100)
	exec(insertItems, 2, 5)
	exec(takeEntries, "a", 100)
	exec(takeEntries, "b", 5)
	// A savepoint released keeps its numbers, and the next ones follow.
	exec(`SAVEPOINT r`)
	exec(insertItems, 1, 10)
	exec(`RELEASE SAVEPOINT r`)
	exec(insertItems, 1, 10)
	require.NoError(t, tx.Commit(bg))

	e.requireIssued()
	require.Equal(t, map[string]int64{"1": 420, "2": 5}, e.counterValues("item_index"))
	require.Equal(t, map[string]int64{"a": 400, "b": 5}, e.counterValues("entry_number"))
}

// Numbers taken over several statements of one transaction, interleaving
// scopes, follow each other; the next transaction continues after them.
func TestCounterTwoStatementsInOneTransaction(t *testing.T) {
	t.Parallel()
	e := linearEnv(t)
	err := pgx.BeginFunc(bg, e.Pool, func(tx pgx.Tx) error {
		for _, step := range []struct {
			sql   string
			scope any
			n     int
		}{
			{insertItems, 1, 400}, {takeEntries, "a", 300}, {insertItems, 2, 7}, {insertItems, 1, 400},
			{takeEntries, "b", 3}, {takeEntries, "a", 300},
		} {
			if _, err := tx.Exec(bg, e.SQL(step.sql), step.scope, step.n); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	e.Exec(insertItems, 1, 1)
	e.Exec(takeEntries, "a", 1)
	e.requireIssued()
	require.Equal(t, map[string]int64{"1": 801, "2": 7}, e.counterValues("item_index"))
	require.Equal(t, map[string]int64{"a": 601, "b": 3}, e.counterValues("entry_number"))
}

// Transactions taking many numbers of one scope at once, some with a
// savepoint rolled back, some rolled back whole: no number is issued
// twice, the committed ones have no gap, and the counter row agrees.
func TestCounterConcurrentBatchesInOneScope(t *testing.T) {
	t.Parallel()
	e := linearEnv(t)
	const workers, rounds = 6, 8
	pool := e.ownPool(workers)
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 18))
			for range rounds {
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					batch := func() error {
						if _, err := tx.Exec(ctx, e.SQL(insertItems), 1, 1+rng.IntN(150)); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, e.SQL(takeEntries), "a", 1+rng.IntN(150))
						return err
					}
					if err := batch(); err != nil {
						return err
					}
					if rng.IntN(2) == 0 {
						if _, err := tx.Exec(ctx, `SAVEPOINT s`); err != nil {
							return err
						}
						if err := batch(); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT s`); err != nil {
							return err
						}
						if err := batch(); err != nil {
							return err
						}
					}
					if rng.IntN(4) == 0 {
						return errRollBack
					}
					return nil
				})
				if err != nil && !errors.Is(err, errRollBack) {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	e.requireIssued()
	t.Logf("committed: items %v, entries %v", e.counterValues("item_index"), e.counterValues("entry_number"))
}

var errRollBack = errors.New("roll back")

// The remembered row versions are only a hint: pointed at another scope's
// row, at a version the transaction replaced, or emptied (RESET ALL), the
// next number is still the right one, and no other row changes.
func TestCounterHintIsOnlyAHint(t *testing.T) {
	t.Parallel()
	e := linearEnv(t)
	tx, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	defer tx.Rollback(bg) //nolint:errcheck // no-op after commit
	next := func(scope string) int64 {
		t.Helper()
		var v int64
		e.On(tx).Scalar(&v, `SELECT {{schema}}.next_value('entry_number', $1)`, scope)
		e.On(tx).Exec(`INSERT INTO {{app}}.ledger VALUES ($1, $2)`, scope, v)
		return v
	}
	// hint points every setting at these row versions.
	hint := func(ctids string) {
		t.Helper()
		_, err := tx.Exec(bg, `SELECT set_config('pgseq.counter_rows_' || i, $1, true) FROM generate_series(0, 63) i`, ctids)
		require.NoError(t, err)
	}
	ctid := func(scope string) string {
		t.Helper()
		var c string
		e.On(tx).Scalar(&c, `SELECT ctid::text FROM {{schema}}.counter_values
		                                      WHERE counter = 'entry_number' AND scope = $1`, scope)
		return c
	}

	require.EqualValues(t, 1, next("a"))
	require.EqualValues(t, 1, next("b"))
	stale := ctid("a")
	require.EqualValues(t, 2, next("a"))
	hint(fmt.Sprintf(`{"%s"}`, ctid("b")))
	require.EqualValues(t, 3, next("a"), "another scope's row")
	hint(fmt.Sprintf(`{"%s","(0,1)","(999999,1)","(0,999)"}`, stale))
	require.EqualValues(t, 4, next("a"), "a replaced version, rows that are not this scope's or do not exist")
	_, err = tx.Exec(bg, `RESET ALL`)
	require.NoError(t, err)
	require.EqualValues(t, 5, next("a"), "no hint")
	hint(`{}`)
	require.EqualValues(t, 6, next("a"), "an empty hint")
	require.EqualValues(t, 2, next("b"))
	require.NoError(t, tx.Commit(bg))
	e.requireIssued()
	require.Equal(t, map[string]int64{"a": 6, "b": 2}, e.counterValues("entry_number"))
}

// The cost of a number does not grow with the numbers the transaction
// took before it: 500 more numbers after 4,000 touch about as many buffers
// as 500 more after 500 (EXPLAIN (ANALYZE, BUFFERS) counts the buffers of
// the functions a statement calls). Version 10 read every version of the
// scope's row at every number: these 500 numbers touched about twice as
// many buffers after 4,000 as after 500.
func TestCounterCostPerNumberDoesNotGrow(t *testing.T) {
	t.Parallel()
	e := linearEnv(t)
	e.Exec(insertItems, 1, 1)
	e.Exec(takeEntries, "a", 1)
	for _, c := range []struct{ name, sql string }{
		{"attached", `INSERT INTO {{app}}.items (project_id) SELECT 1 FROM generate_series(1, %d)`},
		{"next_value", `SELECT count({{schema}}.next_value('entry_number', 'a')) FROM generate_series(1, %d)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx, err := e.Pool.Begin(bg)
			require.NoError(t, err)
			defer tx.Rollback(bg) //nolint:errcheck // measures only
			take := func(n int) {
				e.On(tx).Exec(fmt.Sprintf(c.sql, n))
			}
			buffers := func() int64 {
				var plan []struct {
					Plan struct {
						Hit  int64 `json:"Shared Hit Blocks"`
						Read int64 `json:"Shared Read Blocks"`
					}
				}
				var js []byte
				e.On(tx).Scalar(&js, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+fmt.Sprintf(c.sql, 500))
				require.NoError(t, json.Unmarshal(js, &plan))
				return plan[0].Plan.Hit + plan[0].Plan.Read
			}
			take(500)
			early := buffers()
			take(3000)
			late := buffers()
			t.Logf("500 numbers after 500: %d buffers; after 4,000: %d", early, late)
			require.Less(t, float64(late), 1.2*float64(early), "buffers per number grow with the numbers taken before")
		})
	}
}

// resolve_key finds the row of a prefix_from counter through the counter's
// unique index on (project_id, index): the statement it runs
// (scoped_row_query) is an index scan, where version 10's comparison of
// project_id::text read the whole table.
func TestCounterResolvePrefixUsesIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.projects (id bigint PRIMARY KEY, key text NOT NULL UNIQUE)`)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL REFERENCES {{app}}.projects, index bigint)`)
	tasks := e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable)
	tasks.PrefixFrom = &catalog.PrefixSource{Table: e.app + ".projects", Column: "key"}
	e.apply(tasks)
	e.Exec(`INSERT INTO {{app}}.projects SELECT i, 'P' || i FROM generate_series(1, 40) i`)
	for p := 1; p <= 40; p++ {
		e.Exec(`INSERT INTO {{app}}.tasks (project_id) SELECT $1 FROM generate_series(1, 500)`, p)
	}
	e.Exec(`ANALYZE {{app}}.tasks`)
	// plan explains a statement as resolve_key executes it: EXECUTE … USING
	// the scope as text and the number.
	e.Exec(`CREATE FUNCTION {{app}}.plan(q text) RETURNS json LANGUAGE plpgsql AS $$
	        DECLARE p json;
	        BEGIN
	            EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p USING '17'::text, 42::bigint;
	            RETURN p;
	        END $$`)
	nodes := func(query string) []string {
		t.Helper()
		var js []byte
		e.Scalar(&js, `SELECT {{app}}.plan($1)::text`, query)
		var plan []struct{ Plan planNode }
		require.NoError(t, json.Unmarshal(js, &plan))
		return plan[0].Plan.types()
	}

	var query string
	e.Scalar(&query, `SELECT {{schema}}.scoped_row_query(c) FROM {{schema}}.counters c WHERE c.name = 'task_index'`)
	got := nodes(query)
	require.NotContains(t, got, "Seq Scan", query)
	require.Subset(t, []string{"Index Scan", "Index Only Scan"}, got[len(got)-1:], "%s: %v", query, got)
	old := e.SQL(`SELECT id::text FROM {{app}}.tasks WHERE project_id::text = $1 AND index = $2 LIMIT 1`)
	require.Contains(t, nodes(old), "Seq Scan", "version 10's statement, for comparison")

	var row string
	e.Scalar(&row, `SELECT row_id FROM {{schema}}.resolve_key('p17-42')`)
	var want string
	e.Scalar(&want, `SELECT id::text FROM {{app}}.tasks WHERE project_id = 17 AND index = 42`)
	require.Equal(t, want, row)
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	Type  string     `json:"Node Type"`
	Plans []planNode `json:"Plans"`
}

// types lists the node types of a plan, depth first.
func (n planNode) types() []string {
	out := []string{n.Type}
	for _, c := range n.Plans {
		out = append(out, c.types()...)
	}
	return out
}
