package counter_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

var benchSizes = flag.String("numbers.sizes", "5000,10000,20000,100000",
	"BenchmarkNumbersInOneTransaction: how many numbers one transaction takes, comma-separated")

// BenchmarkNumbersInOneTransaction times one transaction that takes N
// numbers of a single scope, then rolls back (so every round starts from
// the same counter row):
//
//   - next_value: SELECT count(next_value('invoice_number')) FROM
//     generate_series(1, N), a standalone counter;
//   - insert_select: INSERT … SELECT of N rows into one scope of a table
//     with an attached counter, numbered by the trigger pgseq apply makes;
//   - insert_select_increment: the same through a trigger that takes the
//     scope's advisory lock and calls increment_value (migration 011), the
//     body an attached counter's trigger needs to be linear too;
//   - next_values_scopes: one next_values call for N distinct scopes of a
//     standalone counter (migration 026: it was quadratic, 5,000 scopes
//     in 1.9 s), at sizes up to half the server's lock table (each scope
//     holds an advisory lock until the transaction ends).
//
// µs/number is the figure to compare across sizes: constant when the cost
// is linear in N. One round per size is enough:
//
//	go test ./counter -run '^$' -bench NumbersInOneTransaction -benchtime 1x
//	go test ./counter -run '^$' -bench 'NumbersInOneTransaction/next_value' -benchtime 1x -args -numbers.sizes 5000,20000
func BenchmarkNumbersInOneTransaction(b *testing.B) {
	sizes := pgseqtest.Sizes(b, "numbers.sizes", *benchSizes)
	e := newEnv(b)
	app := e.app
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.Exec(`CREATE TABLE {{app}}.items (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	// item_index is declared standalone: the benchmark's own trigger numbers
	// items with it.
	e.Apply(counters(standalone("invoice_number", 1), standalone("item_index", 1), catalog.Counter{
		Name: "task_index", Table: app + ".tasks", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
	}))
	e.Exec(`CREATE FUNCTION {{app}}.number_item() RETURNS trigger LANGUAGE plpgsql AS $$
	      BEGIN
	          PERFORM pg_advisory_xact_lock(1, hashtext(NEW.project_id::text));
	          NEW.index := {{schema}}.increment_value('item_index', NEW.project_id::text, 1);
	          RETURN NEW;
	      END $$`)
	e.Exec(`CREATE TRIGGER number_item BEFORE INSERT ON {{app}}.items FOR EACH ROW EXECUTE FUNCTION {{app}}.number_item()`)
	// Each scope already has its counter row, as a scope in use does.
	e.Exec(`SELECT {{schema}}.next_value('invoice_number')`)
	e.Exec(`INSERT INTO {{app}}.tasks (project_id) VALUES (1)`)
	e.Exec(`INSERT INTO {{app}}.items (project_id) VALUES (1)`)

	// Each scope of a next_values call holds its advisory lock until the
	// transaction ends, and the server's lock table is shared by every
	// session: beyond it the call fails (out of shared memory, 53200).
	var lockSlots int
	e.Scalar(&lockSlots, `SELECT current_setting('max_locks_per_transaction')::int
		* (current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int)`)
	cases := []struct {
		name, sql string
		maxN      int // 0: no bound
	}{
		{"next_value", `SELECT count({{schema}}.next_value('invoice_number')) FROM generate_series(1, $1)`, 0},
		{"insert_select", `INSERT INTO {{app}}.tasks (project_id) SELECT 1 FROM generate_series(1, $1)`, 0},
		{"insert_select_increment", `INSERT INTO {{app}}.items (project_id) SELECT 1 FROM generate_series(1, $1)`, 0},
		{"next_values_scopes", `SELECT count(*) FROM {{schema}}.next_values('item_index', ARRAY(SELECT i::text FROM generate_series(1, $1) i))`, lockSlots / 2},
	}
	for _, c := range cases {
		for _, n := range sizes {
			if c.maxN > 0 && n > c.maxN {
				b.Logf("%s: n=%d left out: one advisory lock per scope, and this server's lock table holds %d", c.name, n, lockSlots)
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				e.BenchRolledBack(b, c.sql, n, "number", n)
			})
		}
	}
}
