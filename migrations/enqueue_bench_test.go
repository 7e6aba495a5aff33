package migrations_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

var enqueueSizes = flag.String("enqueue.sizes", "1000,10000,20000",
	"BenchmarkEnqueueBatchSizes: how many tasks one enqueue_batch call enqueues, comma-separated")

// BenchmarkEnqueueBatchSizes times one enqueue_batch call of N tasks in a
// transaction that is rolled back (every round starts from an empty
// table), with what real batches carry:
//
//   - payloads: one unlimited type, a small JSON payload each, the arrays
//     sent as parameters (as the Go client does);
//   - payloads_built_in_sql: the same arrays built by the calling
//     statement (as a SQL client enqueuing from a table does): before
//     migration 025 these were read by subscript in time linear in the
//     array, so the call took time in the square of its size;
//   - idempotency: the same with an idempotency key each;
//   - idempotency_limited: the same over 100 types limited to 1,000 each
//     (the units are taken after the insert; a statement per type read
//     every waiting task of the call before migration 025);
//   - partition_keys: a partitioned type (at most 1,000 running per key),
//     a key each, N distinct keys;
//   - partition_one_key: the same type, every task of one key (the first
//     1,000 admitted, the others in the key's lane): per task, N keys
//     should cost what one does, but for each new key's row (before
//     migration 028, a key new to the runtime cost its task 3 to 3.5 times
//     as much);
//   - partition_keys_limited: N distinct keys of a type limited to 1,000
//     as well (1,000 tasks take its units, the others wait in its lane);
//   - one_limited_type: every task of one type limited to 1,000 (1,000
//     take its units, the others wait in its lane). Before migrations 032
//     and 035 the insert could compare every task with every unit taken,
//     as its plan went (TestEnqueueBatchWorkIsLinearBesideManyTypes forces
//     it; this case's plan did not, 16-24 µs a task on both versions).
//
// µs/task is the figure to compare across sizes: constant when the call
// is linear in N. One round per size is enough:
//
//	go test ./migrations -run '^$' -bench EnqueueBatchSizes -benchtime 1x
//	go test ./migrations -run '^$' -bench EnqueueBatchSizes -benchtime 1x -args -enqueue.sizes 5000,50000
func BenchmarkEnqueueBatchSizes(b *testing.B) {
	sizes := pgseqtest.Sizes(b, "enqueue.sizes", *enqueueSizes)
	types := []catalog.TaskType{task("plain", 0), task("wide", 1000), partitioned("keyed", 0, 1000, ""), partitioned("keyed_limited", 1000, 1000, "")}
	limited := make([]string, 100)
	for i := range limited {
		limited[i] = fmt.Sprintf("limited.%03d", i)
		types = append(types, task(limited[i], 1000))
	}
	r := newRT(b, state(queueCfg("q"), types...))
	cases := []struct {
		name string
		sql  string
		args func(n int) []any
	}{
		{"payloads", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2)`, func(n int) []any {
			return []any{slices.Repeat([]string{"plain"}, n), payloads(n)}
		}},
		{"payloads_built_in_sql", `SELECT count(*) FROM {{schema}}.enqueue_batch(
			ARRAY(SELECT 'plain' FROM generate_series(1, $1)),
			ARRAY(SELECT jsonb_build_object('order_id', i, 'note', 'a payload of a typical size, some fifty bytes')
			      FROM generate_series(1, $1) i))`, func(n int) []any {
			return []any{n}
		}},
		{"idempotency", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, idempotency_keys => $3)`, func(n int) []any {
			return []any{slices.Repeat([]string{"plain"}, n), payloads(n), numbered("order-", n)}
		}},
		{"idempotency_limited", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, idempotency_keys => $3)`, func(n int) []any {
			return []any{inTurn(limited, n), payloads(n), numbered("order-", n)}
		}},
		{"partition_keys", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, partition_keys => $3)`, func(n int) []any {
			return []any{slices.Repeat([]string{"keyed"}, n), payloads(n), numbered("tenant-", n)}
		}},
		{"partition_one_key", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, partition_keys => $3)`, func(n int) []any {
			return []any{slices.Repeat([]string{"keyed"}, n), payloads(n), slices.Repeat([]string{"tenant"}, n)}
		}},
		{"partition_keys_limited", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, partition_keys => $3)`, func(n int) []any {
			return []any{slices.Repeat([]string{"keyed_limited"}, n), payloads(n), numbered("tenant-", n)}
		}},
		{"one_limited_type", `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2)`, func(n int) []any {
			return []any{slices.Repeat([]string{"wide"}, n), payloads(n)}
		}},
	}
	for _, c := range cases {
		for _, n := range sizes {
			args := c.args(n)
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				r.BenchRolledBack(b, c.sql, n, "task", args...)
			})
		}
	}
}

// inTurn returns n names, taking names in turn.
func inTurn(names []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = names[i%len(names)]
	}
	return out
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// payloads are n small JSON documents, as pgx sends a []json.RawMessage
// for a jsonb[] parameter.
func payloads(n int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		out[i] = json.RawMessage(fmt.Sprintf(`{"order_id": %d, "note": "a payload of a typical size, some fifty bytes"}`, i))
	}
	return out
}

// BenchmarkEnqueueBatchBesideTypes times one enqueue_batch call of 10,000
// tasks (rolled back) in a schema with 100 or 1,000 other task types
// declared, each limited to 1,000, right after the apply (no statistics on
// task_types, as users enqueue): the tasks of one unlimited type, and
// the same number spread over 100 of the limited types and over every one
// of them (the suite's many scenario seeds so). Before migration
// 027 the call compared every row with every declared type.
//
//	go test ./migrations -run '^$' -bench EnqueueBatchBesideTypes -benchtime 1x
func BenchmarkEnqueueBatchBesideTypes(b *testing.B) {
	const n = 10_000
	for _, declared := range []int{100, 1000} {
		types := []catalog.TaskType{task("plain", 0)}
		others := make([]string, declared)
		for i := range others {
			others[i] = fmt.Sprintf("other.%04d", i)
			types = append(types, task(others[i], 1000))
		}
		r := newRT(b, state(queueCfg("q"), types...))
		for _, c := range []struct {
			name  string
			types []string
		}{
			{"unlimited", slices.Repeat([]string{"plain"}, n)},
			{"limited_100_types", inTurn(others[:100], n)},
			{"limited_every_type", inTurn(others, n)},
		} {
			b.Run(fmt.Sprintf("declared=%d/%s", declared, c.name), func(b *testing.B) {
				r.BenchRolledBack(b, `SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, n, "task", c.types)
			})
		}
	}
}

// BenchmarkEnqueueBatchBesideKeptTasks times one enqueue_batch call of
// 2,000 tasks (rolled back) beside 200,000 finished tasks kept for
// retention, ANALYZE having seen them, without and with an idempotency key
// per task. Before migrations 032 and 035 the call's lookup of the keys
// already taken hashed every task in the table, keys or not: its cost grew
// with the tasks kept.
//
//	go test ./migrations -run '^$' -bench EnqueueBatchBesideKeptTasks -benchtime 20x
func BenchmarkEnqueueBatchBesideKeptTasks(b *testing.B) {
	const n, kept = 2000, 200_000
	r := newRT(b, state(queueCfg("q"), task("plain", 0)))
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, completed_at, idempotency_key)
	        SELECT 'q', 'plain', 'completed', now(), 'kept-' || i FROM generate_series(1, $1) i`, kept)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	types := slices.Repeat([]string{"plain"}, n)
	b.Run("no_keys", func(b *testing.B) {
		r.BenchRolledBack(b, `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2)`, n, "task", types, payloads(n))
	})
	b.Run("idempotency_keys", func(b *testing.B) {
		r.BenchRolledBack(b, `SELECT count(*) FROM {{schema}}.enqueue_batch($1, $2, idempotency_keys => $3)`,
			n, "task", types, payloads(n), numbered("order-", n))
	})
}

// BenchmarkEnqueueOne times single enqueue calls, each its own transaction
// (autocommit, as an application enqueuing one task at a time), of a type
// without a limit, of a limited type (1,000,000 units: never binding; each
// enqueue takes a unit) and of a partitioned type (every task of one key,
// the first 1,000 admitted). The variants run interleaved,
// enqueueOneRounds rounds:
//
//	go test ./migrations -run '^$' -bench EnqueueOne -benchtime 2000x
//
// Migration 031 made the limited type's take_units check for a draining
// type with a PL/pgSQL function (a SQL one with a subquery was planned
// again in every transaction).
func BenchmarkEnqueueOne(b *testing.B) {
	variants := []struct {
		name string
		typ  catalog.TaskType
		call string
	}{
		{"unlimited", task("plain", 0), `SELECT {{schema}}.enqueue('plain')`},
		{"limited", task("lim", 1_000_000), `SELECT {{schema}}.enqueue('lim')`},
		{"one_key", partitioned("keyed", 0, 1000, ""), `SELECT {{schema}}.enqueue('keyed', partition_key => 'k')`},
	}
	rts := make([]*rt, len(variants))
	for i, v := range variants {
		rts[i] = newRT(b, state(queueCfg("q"), v.typ))
	}
	for round := 0; round < enqueueOneRounds; round++ {
		for i, v := range variants {
			r, call := rts[i], rts[i].SQL(v.call)
			b.Run(v.name, func(b *testing.B) {
				for range b.N {
					if _, err := r.Pool.Exec(bg, call); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// enqueueOneRounds is how many interleaved rounds of every variant
// BenchmarkEnqueueOne runs.
const enqueueOneRounds = 3
