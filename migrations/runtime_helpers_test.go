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
	"github.com/pgseq/pgseq/migrations"
)

// rt is one test's pgseq schema with the runtime installed.
type rt struct {
	*pgseqtest.DB
}

func newRT(t testing.TB, desired catalog.State) *rt {
	t.Helper()
	r := &rt{DB: pgseqtest.New(t)}
	serverUpOnce.Do(func() { waitServerUp(t, r.Pool) })
	r.Apply(desired)
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

func (r *rt) register(worker string) {
	r.T.Helper()
	r.Exec(`SELECT {{schema}}.register_worker($1, 'test-host', 10)`, worker)
}

// contactWentOn records that the database heard from workers all along, as
// when other workers kept heartbeating: no gap (migration 013). A test calls
// it just before a maintenance that must judge a backdated heartbeat: with
// the tests' 1 s worker_timeout, a test's own steps on a loaded machine can
// leave more than a second between two contacts, which the runtime reads as
// an outage that gives every silent worker a fresh worker_timeout.
func (r *rt) contactWentOn() {
	r.T.Helper()
	r.Exec(`UPDATE {{schema}}.runtime_clock SET contact_at = now(), judged_from = '-infinity'`)
}

// enqueueN adds n tasks of a type in one call.
func (r *rt) enqueueN(taskType string, n int) {
	r.T.Helper()
	types := make([]string, n)
	for i := range types {
		types[i] = taskType
	}
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, types)
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

func (r *rt) running(taskType string) int {
	r.T.Helper()
	var n int
	r.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks WHERE type = $1 AND status = 'running'`, taskType)
	return n
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
