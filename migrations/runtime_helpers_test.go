package migrations_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
)

// rt is one test's pgseq schema with the runtime installed.
type rt struct {
	t      testing.TB
	pool   *pgxpool.Pool
	schema string
}

func newRT(t testing.TB, desired catalog.State) *rt {
	t.Helper()
	r := &rt{t: t, pool: pgtest.Pool(t), schema: pgtest.Schema(t)}
	serverUpOnce.Do(func() { waitServerUp(t, r.pool) })
	r.apply(desired)
	return r
}

var serverUpOnce sync.Once

// serverUp is how long the test server must have been running before a
// test judges a heartbeat: the recovery hears from every worker at the
// server's start at the latest (migration 013), so on a server started
// less than the tests' 1 s worker_timeout ago no worker is dead yet,
// however far back a test moves its heartbeat.
const serverUp = 1500 * time.Millisecond

// waitServerUp sleeps until the server has been up for serverUp (at once
// when it has: the local test cluster usually has).
func waitServerUp(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	var up float64
	require.NoError(t, pool.QueryRow(bg, `SELECT extract(epoch FROM now() - pg_postmaster_start_time())::float8`).Scan(&up))
	if wait := serverUp - time.Duration(up*float64(time.Second)); wait > 0 {
		time.Sleep(wait)
	}
}

var bg = context.Background()

// apply plans and applies desired, and requires convergence.
func (r *rt) apply(desired catalog.State) {
	r.t.Helper()
	pgseqtest.Apply(r.t, r.pool, r.schema, desired)
}

// sql renders {{schema}} in a statement.
func (r *rt) sql(s string) string { return migrations.Render(s, r.schema) }

func (r *rt) exec(s string, args ...any) {
	r.t.Helper()
	_, err := r.pool.Exec(bg, r.sql(s), args...)
	require.NoError(r.t, err)
}

func (r *rt) scalar(dest any, s string, args ...any) {
	r.t.Helper()
	require.NoError(r.t, r.pool.QueryRow(bg, r.sql(s), args...).Scan(dest))
}

func (r *rt) register(worker string) {
	r.t.Helper()
	r.exec(`SELECT {{schema}}.register_worker($1, 'test-host', 10)`, worker)
}

// contactWentOn records that the database heard from workers all along, as
// when other workers kept heartbeating: no gap (migration 013). A test calls
// it just before a maintenance that must judge a backdated heartbeat: with
// the tests' 1 s worker_timeout, a test's own steps on a loaded machine can
// leave more than a second between two contacts, which the runtime reads as
// an outage that gives every silent worker a fresh worker_timeout.
func (r *rt) contactWentOn() {
	r.t.Helper()
	r.exec(`UPDATE {{schema}}.runtime_clock SET contact_at = now(), judged_from = '-infinity'`)
}

// enqueueN adds n tasks of a type in one call.
func (r *rt) enqueueN(taskType string, n int) {
	r.t.Helper()
	types := make([]string, n)
	for i := range types {
		types[i] = taskType
	}
	r.exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, types)
}

// claim returns the ids and slot groups claimed.
func claim(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, schema, queue, worker string, batch int) ([]int64, error) {
	rows, err := db.Query(ctx, migrations.Render(`SELECT id FROM {{schema}}.claim($1, $2, $3)`, schema), queue, worker, batch)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// checkSlotAccounting requires invariant 2: every slot group's used equals
// the number of tasks holding one of its units (open pending or running);
// that no task holds a unit of a group that does not exist; and invariant 5
// at rest: no limited type has a due waiting task while a unit of it is
// free (unless it is draining).
func (r *rt) checkSlotAccounting() {
	r.t.Helper()
	rows, err := r.pool.Query(bg, r.sql(`
		SELECT s.task_type, s.slot_group, s.used, count(t.id)
		FROM {{schema}}.concurrency_slots s
		LEFT JOIN {{schema}}.tasks t ON t.type = s.task_type AND t.slot_group = s.slot_group
		     AND t.status IN ('pending', 'running')
		GROUP BY 1, 2, 3
		HAVING s.used <> count(t.id)`))
	require.NoError(r.t, err)
	type bad struct {
		Type    string
		Group   int
		Used    int
		Holders int64
	}
	wrong, err := pgx.CollectRows(rows, pgx.RowToStructByPos[bad])
	require.NoError(r.t, err)
	require.Empty(r.t, wrong, "slot groups whose used differs from their holders")

	var orphans int
	r.scalar(&orphans, `SELECT count(*) FROM {{schema}}.tasks t
		WHERE t.status IN ('pending', 'running') AND t.slot_group IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
		                  WHERE s.task_type = t.type AND s.slot_group = t.slot_group)`)
	require.Zero(r.t, orphans, "tasks holding units of slot groups that do not exist")

	var misgated int
	r.scalar(&misgated, `SELECT count(*) FROM {{schema}}.tasks t
		WHERE t.status = 'pending' AND t.slot_group IS NOT NULL AND t.gate <> 'open'`)
	require.Zero(r.t, misgated, "pending tasks holding a unit must be open")

	var starved []string
	rows, err = r.pool.Query(bg, r.sql(`
		SELECT DISTINCT t.type FROM {{schema}}.tasks t
		WHERE t.status = 'pending' AND t.gate = 'waiting' AND t.run_at <= now()
		  AND EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s WHERE s.task_type = t.type AND s.used < s.capacity)
		  AND NOT EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s WHERE s.task_type = t.type AND s.used > s.capacity)`))
	require.NoError(r.t, err)
	starved, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(r.t, err)
	require.Empty(r.t, starved, "types with due waiting tasks and free units")
}

func (r *rt) running(taskType string) int {
	r.t.Helper()
	var n int
	r.scalar(&n, `SELECT count(*) FROM {{schema}}.tasks WHERE type = $1 AND status = 'running'`, taskType)
	return n
}

func (r *rt) statusCounts() map[string]int {
	r.t.Helper()
	rows, err := r.pool.Query(bg, r.sql(`SELECT status::text, count(*)::int FROM {{schema}}.tasks GROUP BY 1`))
	require.NoError(r.t, err)
	out := map[string]int{}
	var s string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&s, &n}, func() error { out[s] = n; return nil })
	require.NoError(r.t, err)
	return out
}

func queueCfg(name string, mutate ...func(*catalog.Queue)) catalog.Queue {
	q := catalog.DefaultQueue(name)
	q.WorkerTimeout = catalog.Duration(1e9)
	q.LeaderLease = catalog.Duration(1e9)
	q.Backoff.Initial = catalog.Duration(1e6) // 1ms: retries come back at once in tests
	q.Backoff.Max = catalog.Duration(1e6)
	for _, m := range mutate {
		m(&q)
	}
	return q
}

func state(q catalog.Queue, types ...catalog.TaskType) catalog.State {
	return catalog.State{Queues: []catalog.Queue{q}, TaskTypes: types}
}

func task(name string, limit int) catalog.TaskType {
	return catalog.TaskType{Name: name, Queue: "q", Concurrency: limit}
}

func workerName(i int) string { return fmt.Sprintf("w%02d", i) }
