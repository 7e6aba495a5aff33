package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/queue"
)

// env is one test's pgseq schema on the shared test database, with a
// client on it.
type env struct {
	*pgseqtest.DB
	client *queue.Client
}

func newEnv(t *testing.T, cfg catalog.State) *env {
	t.Helper()
	d := pgseqtest.NewDB(t, cfg)
	return &env{DB: d, client: queue.NewClient(d.Pool, d.Schema)}
}

// config is one queue with the given task types (unlimited unless set).
func config(q catalog.Queue, types ...catalog.TaskType) catalog.State {
	for i := range types {
		if types[i].Queue == "" {
			types[i].Queue = q.Name
		}
	}
	return catalog.State{Queues: []catalog.Queue{q}, TaskTypes: types}
}

func fastQueue() catalog.Queue {
	q := catalog.DefaultQueue("default")
	q.Backoff.Initial = catalog.Duration(10 * time.Millisecond)
	q.Backoff.Max = catalog.Duration(10 * time.Millisecond)
	q.Backoff.Jitter = 0
	return q
}

// run starts w and returns a function that stops it and returns Run's error.
func run(t *testing.T, w *queue.Worker) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-errc:
			case <-time.After(30 * time.Second):
				err = errors.New("worker did not stop within 30s")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// logSeen is a slog.Handler that records whether a message starting with
// prefix was logged.
type logSeen struct {
	prefix string
	seen   *atomic.Bool
}

func (h logSeen) Enabled(context.Context, slog.Level) bool { return true }
func (h logSeen) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h logSeen) WithGroup(string) slog.Handler            { return h }
func (h logSeen) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.prefix) {
		h.seen.Store(true)
	}
	return nil
}

func TestConfigChannelIsTheOneApplyNotifies(t *testing.T) {
	require.Equal(t, applier.NotifyChannel, queue.ConfigChannel)
}

func TestEnqueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "email:send", Priority: 3}))
	ctx := context.Background()

	id1, err := e.client.Enqueue(ctx, "email:send", map[string]string{"to": "a@example.com"})
	require.NoError(t, err)
	id2, err := e.client.Enqueue(ctx, "email:send", nil, queue.WithPriority(7))
	require.NoError(t, err)
	require.Greater(t, id2, id1)

	var payload []byte
	var prio int
	var queueName string
	e.Row(`SELECT payload, priority, queue FROM {{schema}}.tasks WHERE id = $1`, []any{id1}, &payload, &prio, &queueName)
	require.JSONEq(t, `{"to":"a@example.com"}`, string(payload))
	require.Equal(t, 3, prio, "the task type's default priority")
	require.Equal(t, "default", queueName, "the queue comes from the task type")
	e.Row(`SELECT payload, priority FROM {{schema}}.tasks WHERE id = $1`, []any{id2}, &payload, &prio)
	require.Nil(t, payload, "a nil payload is stored as NULL")
	require.Equal(t, 7, prio)

	t.Run("idempotency key returns the existing task", func(t *testing.T) {
		a, err := e.client.Enqueue(ctx, "email:send", json.RawMessage(`{"n":1}`), queue.WithIdempotencyKey("k1"))
		require.NoError(t, err)
		b, err := e.client.Enqueue(ctx, "email:send", json.RawMessage(`{"n":2}`), queue.WithIdempotencyKey("k1"))
		require.NoError(t, err)
		require.Equal(t, a, b)
	})

	t.Run("run_at", func(t *testing.T) {
		at := time.Now().Add(time.Hour).Truncate(time.Microsecond)
		id, err := e.client.Enqueue(ctx, "email:send", nil, queue.WithRunAt(at))
		require.NoError(t, err)
		var got time.Time
		e.Scalar(&got, `SELECT run_at FROM {{schema}}.tasks WHERE id = $1`, id)
		require.True(t, at.Equal(got), "run_at %v, want %v", got, at)
	})

	t.Run("task types", func(t *testing.T) {
		names, err := e.client.TaskTypes(ctx, "default")
		require.NoError(t, err)
		require.Equal(t, []string{"email:send"}, names)
		names, err = e.client.TaskTypes(ctx, "other")
		require.NoError(t, err)
		require.Empty(t, names)
	})

	t.Run("unknown task type", func(t *testing.T) {
		_, err := e.client.Enqueue(ctx, "nope", nil)
		require.ErrorIs(t, err, queue.ErrUnknownTaskType)
		require.ErrorContains(t, err, `enqueueing "nope"`)
	})

	t.Run("invalid JSON", func(t *testing.T) {
		_, err := e.client.Enqueue(ctx, "email:send", []byte(`{`))
		require.ErrorContains(t, err, "not valid JSON")
	})

	t.Run("inside the caller's transaction", func(t *testing.T) {
		var before int
		e.Scalar(&before, `SELECT count(*) FROM {{schema}}.tasks`)
		tx, err := e.Pool.Begin(ctx)
		require.NoError(t, err)
		_, err = e.client.WithDB(tx).Enqueue(ctx, "email:send", nil)
		require.NoError(t, err)
		require.NoError(t, tx.Rollback(ctx))
		var after int
		e.Scalar(&after, `SELECT count(*) FROM {{schema}}.tasks`)
		require.Equal(t, before, after, "rolled back with the caller's transaction")
	})
}

func TestEnqueueBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "a"}, catalog.TaskType{Name: "b", Concurrency: 5}))
	ctx := context.Background()

	prio := 9
	ids, err := e.client.EnqueueBatch(ctx, []queue.NewTask{
		{Type: "a", Payload: map[string]int{"n": 1}},
		{Type: "b"},
		{Type: "a", EnqueueOptions: queue.EnqueueOptions{IdempotencyKey: "x", Priority: &prio}},
		{Type: "a", Payload: json.RawMessage(`[1,2]`)},
	})
	require.NoError(t, err)
	require.Len(t, ids, 4)
	for i, want := range []string{`{"n": 1}`, "", `[1, 2]`} {
		idx := []int{0, 1, 3}[i]
		var payload *string
		var typ string
		e.Row(`SELECT payload::text, type FROM {{schema}}.tasks WHERE id = $1`, []any{ids[idx]}, &payload, &typ)
		if want == "" {
			require.Nil(t, payload)
			require.Equal(t, "b", typ)
		} else {
			require.Equal(t, want, *payload, "ids come back in input order")
		}
	}
	var p int
	e.Scalar(&p, `SELECT priority FROM {{schema}}.tasks WHERE id = $1`, ids[2])
	require.Equal(t, 9, p)

	again, err := e.client.EnqueueBatch(ctx, []queue.NewTask{
		{Type: "b"},
		{Type: "a", EnqueueOptions: queue.EnqueueOptions{IdempotencyKey: "x"}},
	})
	require.NoError(t, err)
	require.Equal(t, ids[2], again[1], "a used idempotency key returns the existing id")
	require.NotEqual(t, ids[1], again[0])

	_, err = e.client.EnqueueBatch(ctx, []queue.NewTask{{Type: "a"}, {Type: "missing"}})
	require.ErrorIs(t, err, queue.ErrUnknownTaskType)

	ids, err = e.client.EnqueueBatch(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, ids)
}

// counter observes a worker.
type counter struct {
	queue.NopObserver
	claims    atomic.Int64
	completed atomic.Int64
	mu        sync.Mutex
	requested []int
	failed    []string
	released  int
}

func (c *counter) Claimed(requested, got int, _ time.Duration, _ error) {
	c.claims.Add(1)
	c.mu.Lock()
	c.requested = append(c.requested, requested)
	c.mu.Unlock()
}

func (c *counter) Completed(_, accepted int, _ time.Duration, _ error) {
	c.completed.Add(int64(accepted))
}

func (c *counter) Failed(_ *queue.Task, status string, _ error, _ time.Duration) {
	c.mu.Lock()
	c.failed = append(c.failed, status)
	c.mu.Unlock()
}

func (c *counter) Released(n int, _ time.Duration, _ error) {
	c.mu.Lock()
	c.released += n
	c.mu.Unlock()
}

func (c *counter) sawRequest(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.requested {
		if r == n {
			return true
		}
	}
	return false
}

func TestWorkerDrainsQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "a"}, catalog.TaskType{Name: "b", Concurrency: 3}))
	ctx := context.Background()
	const n = 3000
	batch := make([]queue.NewTask, n)
	for i := range batch {
		batch[i] = queue.NewTask{Type: []string{"a", "a", "b"}[i%3], Payload: map[string]int{"i": i}}
	}
	ids, err := e.client.EnqueueBatch(ctx, batch)
	require.NoError(t, err)

	var mu sync.Mutex
	seen := make(map[int64]int, n)
	var runningB, maxB atomic.Int64
	handler := func(limited bool) queue.Handler {
		return func(ctx context.Context, task *queue.Task) error {
			var p struct{ I int }
			if err := task.Decode(&p); err != nil {
				return err
			}
			if limited {
				now := runningB.Add(1)
				for {
					m := maxB.Load()
					if now <= m || maxB.CompareAndSwap(m, now) {
						break
					}
				}
				time.Sleep(100 * time.Microsecond)
				runningB.Add(-1)
			}
			mu.Lock()
			seen[task.ID]++
			mu.Unlock()
			return nil
		}
	}
	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 8, BatchSize: 50, Observer: obs,
		Handlers: map[string]queue.Handler{"a": handler(false)},
	})
	require.NoError(t, err)
	w.Handle("b", handler(true))
	stop := run(t, w)

	if !assert.Eventually(t, func() bool { return obs.completed.Load() == n }, 30*time.Second, 10*time.Millisecond) {
		var slots string
		e.Scalar(&slots, `SELECT string_agg(format('%s/%s:%s/%s', task_type, slot_group, used, capacity), ' ') FROM {{schema}}.concurrency_slots`)
		t.Logf("completed %d, statuses %v, slots %s", obs.completed.Load(), e.StatusCounts(), slots)
		t.FailNow()
	}
	require.NoError(t, stop())
	require.Equal(t, map[string]int{"completed": n}, e.StatusCounts())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, n)
	for _, id := range ids {
		require.Equal(t, 1, seen[id], "task %d ran once", id)
	}
	require.LessOrEqual(t, maxB.Load(), int64(3), "type b's limit of 3 holds")
	// Every task completed, so none holds a unit: used = holders (I2) says
	// that every slot was released.
	e.RequireInvariants()
}

func TestHandlerErrorIsRetriedThenDeadLettered(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.MaxRetries = 2
	e := newEnv(t, config(q, catalog.TaskType{Name: "flaky"}))
	ctx := context.Background()
	id, err := e.client.Enqueue(ctx, "flaky", nil)
	require.NoError(t, err)

	var calls atomic.Int64
	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Observer: obs, PollInterval: 10 * time.Millisecond,
		Handlers: map[string]queue.Handler{"flaky": func(ctx context.Context, t *queue.Task) error {
			calls.Add(1)
			return errors.New("boom")
		}},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return e.StatusCounts()["dead_letter"] == 1 }, 20*time.Second, 10*time.Millisecond)
	require.NoError(t, stop())

	var attempts int
	var lastError string
	e.Row(`SELECT attempts, last_error FROM {{schema}}.tasks WHERE id = $1`, []any{id}, &attempts, &lastError)
	require.Equal(t, 3, attempts, "the first attempt and max_retries = 2 retries")
	require.Equal(t, int64(3), calls.Load())
	require.Equal(t, "boom", lastError)
	require.Equal(t, []string{"pending", "pending", "dead_letter"}, obs.failed)
}

func TestPanicFailsTheTask(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.MaxRetries = 0
	e := newEnv(t, config(q, catalog.TaskType{Name: "bad"}, catalog.TaskType{Name: "fine"}))
	ctx := context.Background()
	bad, err := e.client.Enqueue(ctx, "bad", nil)
	require.NoError(t, err)
	fine, err := e.client.Enqueue(ctx, "fine", nil)
	require.NoError(t, err)

	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Observer: obs, PoolSize: 1,
		Handlers: map[string]queue.Handler{
			"bad":  func(context.Context, *queue.Task) error { panic("kaboom") },
			"fine": func(context.Context, *queue.Task) error { return nil },
		},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool {
		s := e.StatusCounts()
		return s["dead_letter"] == 1 && s["completed"] == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, stop())

	var lastError string
	var status string
	e.Row(`SELECT status::text, last_error FROM {{schema}}.tasks WHERE id = $1`, []any{bad}, &status, &lastError)
	require.Equal(t, "dead_letter", status)
	require.Contains(t, lastError, "handler panicked: kaboom")
	require.Contains(t, lastError, "goroutine", "the stack is kept")
	e.Scalar(&status, `SELECT status::text FROM {{schema}}.tasks WHERE id = $1`, fine)
	require.Equal(t, "completed", status, "the worker survives a panic")
}

func TestNoHandlerFailsForGood(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "orphan"}, catalog.TaskType{Name: "final"}))
	ctx := context.Background()
	orphan, err := e.client.Enqueue(ctx, "orphan", nil)
	require.NoError(t, err)
	final, err := e.client.Enqueue(ctx, "final", nil)
	require.NoError(t, err)

	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema,
		Handlers: map[string]queue.Handler{
			"final": func(context.Context, *queue.Task) error { return queue.NoRetry(errors.New("invalid input")) },
		},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return e.StatusCounts()["failed"] == 2 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, stop())

	var attempts int
	var lastError string
	e.Row(`SELECT attempts, last_error FROM {{schema}}.tasks WHERE id = $1`, []any{orphan}, &attempts, &lastError)
	require.Equal(t, 1, attempts)
	require.Contains(t, lastError, `no handler for task type "orphan"`)
	e.Row(`SELECT attempts, last_error FROM {{schema}}.tasks WHERE id = $1`, []any{final}, &attempts, &lastError)
	require.Equal(t, 1, attempts, "NoRetry: not retried")
	require.Equal(t, "invalid input", lastError)
}

func TestGracefulShutdownHandsBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "slow", Concurrency: 10}))
	ctx := context.Background()
	batch := make([]queue.NewTask, 20)
	for i := range batch {
		batch[i] = queue.NewTask{Type: "slow"}
	}
	_, err := e.client.EnqueueBatch(ctx, batch)
	require.NoError(t, err)

	// Two handlers: one finishes within the grace period, one never does
	// (until its context is cancelled).
	var started atomic.Int64
	finishOne := make(chan struct{})
	var cancelled atomic.Int64
	obs := &counter{}
	var stopping atomic.Bool
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 2, BatchSize: 4, Observer: obs,
		Logger:          slog.New(logSeen{prefix: "worker stopping", seen: &stopping}),
		ShutdownTimeout: 500 * time.Millisecond,
		Handlers: map[string]queue.Handler{"slow": func(ctx context.Context, t *queue.Task) error {
			if started.Add(1) == 1 {
				<-finishOne
				return nil
			}
			<-ctx.Done()
			cancelled.Add(1)
			return ctx.Err()
		}},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return started.Load() == 2 }, 10*time.Second, 5*time.Millisecond)
	var running int
	require.Eventually(t, func() bool { return e.StatusCounts()["running"] == 8 }, 10*time.Second, 5*time.Millisecond,
		"two batches of 4 claimed: 2 running handlers and 6 waiting")

	require.False(t, stopping.Load(), "no shutdown before stop")
	done := make(chan error, 1)
	go func() { done <- stop() }()
	// The first handler finishes only once the shutdown has begun (its log
	// says so): from then on no new task starts, so its goroutine must hand
	// the next one back instead of running it.
	require.Eventually(t, stopping.Load, 10*time.Second, time.Millisecond, "the worker logs that it is stopping")
	close(finishOne) // within the grace period
	require.NoError(t, <-done)

	require.Equal(t, map[string]int{"completed": 1, "pending": 19}, e.StatusCounts())
	e.Scalar(&running, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending' AND (attempts <> 0 OR worker_id IS NOT NULL)`)
	require.Zero(t, running, "handed back: no attempt counted, no owner")
	// The units of handed-back tasks passed on: no task runs, so every unit
	// used is held by an open pending task (I2), and no due task waits
	// beside a free one (I5).
	e.RequireInvariants()
	require.Equal(t, 7, obs.released, "6 unstarted and 1 still running after the grace period")
	require.Equal(t, int64(1), cancelled.Load(), "the late handler's context was cancelled")
	require.Equal(t, int64(2), started.Load(), "nothing new started during shutdown")
	var expired bool
	e.Scalar(&expired, `SELECT lease_until < now() FROM {{schema}}.leader`)
	require.True(t, expired, "leadership resigned")
}

func TestWorkerPicksUpNewBatchSizeAfterApply(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.BatchSize = 5
	cfg := config(q, catalog.TaskType{Name: "a"})
	e := newEnv(t, cfg)
	ctx := context.Background()

	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Observer: obs, PollInterval: 10 * time.Millisecond,
		Handlers: map[string]queue.Handler{"a": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return obs.sawRequest(5) && w.Listening() }, 10*time.Second, 5*time.Millisecond)

	cfg.Queues[0].BatchSize = 7
	e.Apply(cfg)
	require.Eventually(t, func() bool { return w.Settings().BatchSize == 7 }, 10*time.Second, 5*time.Millisecond,
		"the worker reloads its queue's settings on the apply's notification")
	require.Eventually(t, func() bool { return obs.sawRequest(7) }, 10*time.Second, 5*time.Millisecond,
		"and claims with the new batch size")

	_, err = e.client.Enqueue(ctx, "a", nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return obs.completed.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())
}

func TestWorkerDeclaredDeadCarriesOnUnderNewID(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.LeaderLease = catalog.Duration(time.Second) // the new incarnation soon leads, whoever held the lease
	e := newEnv(t, config(q, catalog.TaskType{Name: "a"}))
	ctx := context.Background()
	first, err := e.client.Enqueue(ctx, "a", nil)
	require.NoError(t, err)

	release := make(chan struct{})
	var calls atomic.Int64
	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Observer: obs, WorkerID: "w1",
		HeartbeatInterval: 20 * time.Millisecond, PollInterval: 10 * time.Millisecond, MaintenanceInterval: 20 * time.Millisecond,
		Handlers: map[string]queue.Handler{"a": func(ctx context.Context, t *queue.Task) error {
			if calls.Add(1) == 1 {
				select { // the first task hangs until the worker is declared dead
				case <-ctx.Done():
				case <-release:
				}
			}
			return nil
		}},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 10*time.Second, 5*time.Millisecond)

	e.Exec(`UPDATE {{schema}}.workers SET dead_at = now() WHERE id = 'w1'`)
	require.Eventually(t, func() bool { return w.ID() != "w1" }, 10*time.Second, 5*time.Millisecond)
	close(release)

	second, err := e.client.Enqueue(ctx, "a", nil)
	require.NoError(t, err)

	// The first task's handler returned after w1 was declared dead, so its
	// result is discarded; the leader (soon the new incarnation) recovers
	// the task and it runs again. Wait for that end state, whatever the
	// order of the steps: a task seen in between (still w1's and running,
	// or recovered and pending with no worker) is not an outcome.
	type row struct {
		status   string
		owner    *string
		attempts int
	}
	read := func(id int64) row {
		var r row
		e.Row(`SELECT status::text, worker_id, attempts FROM {{schema}}.tasks WHERE id = $1`, []any{id}, &r.status, &r.owner, &r.attempts)
		return r
	}
	require.Eventually(t, func() bool {
		return read(first).status == "completed" && read(second).status == "completed"
	}, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())

	r := read(first)
	require.Equal(t, 2, r.attempts, "w1's result was discarded: the task was recovered and run again")
	require.NotNil(t, r.owner)
	require.Equal(t, w.ID(), *r.owner, "run again by the new incarnation")
	require.Equal(t, int64(3), calls.Load(), "the first task twice, the second once")
	r = read(second)
	require.NotNil(t, r.owner)
	require.Equal(t, w.ID(), *r.owner)
	require.NotEqual(t, "w1", *r.owner)
}

func TestLeaderRecoversDeadWorkersTasks(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.WorkerTimeout = catalog.Duration(time.Second)
	e := newEnv(t, config(q, catalog.TaskType{Name: "a", Concurrency: 1}))
	ctx := context.Background()
	id, err := e.client.Enqueue(ctx, "a", nil)
	require.NoError(t, err)
	// A worker that claims the task and then goes silent.
	e.Exec(`SELECT {{schema}}.register_worker('ghost', 'nowhere', 1)`)
	var claimed int64
	e.Scalar(&claimed, `SELECT id FROM {{schema}}.claim('default', 'ghost', 10)`)
	require.Equal(t, id, claimed)
	e.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'ghost'`)

	var calls atomic.Int64
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, MaintenanceInterval: 50 * time.Millisecond, PollInterval: 10 * time.Millisecond,
		Handlers: map[string]queue.Handler{"a": func(context.Context, *queue.Task) error { calls.Add(1); return nil }},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return e.StatusCounts()["completed"] == 1 }, 10*time.Second, 10*time.Millisecond,
		"the leader recovers the ghost's task and the worker runs it")
	require.NoError(t, stop())
	require.Equal(t, int64(1), calls.Load())
	var attempts int
	e.Scalar(&attempts, `SELECT attempts FROM {{schema}}.tasks WHERE id = $1`, id)
	require.Equal(t, 2, attempts)
}

func TestWorkerNeedsADeclaredQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "a"}))
	w, err := queue.NewWorker(queue.Config{Pool: e.Pool, Schema: e.Schema, Queue: "other"})
	require.NoError(t, err)
	err = w.Run(context.Background())
	require.ErrorIs(t, err, queue.ErrUnknownQueue)
	require.ErrorContains(t, err, `queue "other"`)

	_, err = queue.NewWorker(queue.Config{})
	require.ErrorContains(t, err, "Pool is required")
}

// sockets records a pool's network connections so a test can cut them.
type sockets struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (k *sockets) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		k.mu.Lock()
		k.conns = append(k.conns, c)
		k.mu.Unlock()
	}
	return c, err
}

// cut closes every connection, as a network failure would: requests in
// flight get no answer.
func (k *sockets) cut() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.conns {
		_ = c.Close()
	}
	k.conns = nil
}

// TestNothingIsLostWhenConnectionsDie cuts the worker's connections while
// it drains, both ways: the server terminating them (the client is told)
// and the network failing (a claim in flight may have committed unseen, so
// the worker carries on under a new id and the leader recovers the old
// id's tasks). Every task ends up completed and every slot released.
func TestNothingIsLostWhenConnectionsDie(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.WorkerTimeout = catalog.Duration(time.Second)
	q.LeaderLease = catalog.Duration(time.Second) // an old id's lease may not have been resigned
	e := newEnv(t, config(q, catalog.TaskType{Name: "a"}, catalog.TaskType{Name: "b", Concurrency: 5}))
	ctx := context.Background()
	const n = 2000
	batch := make([]queue.NewTask, n)
	for i := range batch {
		batch[i] = queue.NewTask{Type: []string{"a", "b"}[i%2]}
	}
	_, err := e.client.EnqueueBatch(ctx, batch)
	require.NoError(t, err)

	// The worker gets a pool of its own, so that cutting its connections
	// leaves the other tests alone.
	app := "pgseq queue test " + e.Schema
	cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	socks := &sockets{}
	cfg.ConnConfig.DialFunc = socks.dial
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()

	obs := &counter{}
	noop := func(context.Context, *queue.Task) error { time.Sleep(200 * time.Microsecond); return nil }
	w, err := queue.NewWorker(queue.Config{
		Pool: pool, Schema: e.Schema, Observer: obs, WorkerID: "chaos", BatchSize: 20, PoolSize: 4,
		PollInterval: 10 * time.Millisecond, MaintenanceInterval: 100 * time.Millisecond,
		Handlers: map[string]queue.Handler{"a": noop, "b": noop},
	})
	require.NoError(t, err)
	stop := run(t, w)
	for kills := 0; kills < 8; {
		if obs.completed.Load() > int64(kills+1)*150 {
			if kills%2 == 0 {
				e.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, app)
			} else {
				socks.cut()
			}
			kills++
		}
		time.Sleep(2 * time.Millisecond)
	}
	if !assert.Eventually(t, func() bool { return e.StatusCounts()["completed"] == n }, 30*time.Second, 20*time.Millisecond) {
		t.Fatalf("statuses %v", e.StatusCounts())
	}
	require.NoError(t, stop())
	// Every task completed, so none holds a unit: used = holders (I2) says
	// that every slot was released.
	e.RequireInvariants()
	t.Logf("worker ids used: %s", w.ID())
}

// A worker that may not LISTEN (PollOnly, as behind a transaction-mode
// pooler) follows an apply within its SettingsInterval.
func TestPollOnlyWorkerFollowsAnApplyWithinItsSettingsInterval(t *testing.T) {
	t.Parallel()
	q := fastQueue()
	q.BatchSize = 5
	cfg := config(q, catalog.TaskType{Name: "a"})
	e := newEnv(t, cfg)

	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Observer: obs, PollInterval: 10 * time.Millisecond,
		PollOnly: true, SettingsInterval: 100 * time.Millisecond,
		Handlers: map[string]queue.Handler{"a": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return obs.sawRequest(5) }, 10*time.Second, 5*time.Millisecond)
	require.False(t, w.Listening(), "PollOnly opens no listening connection")

	cfg.Queues[0].BatchSize = 7
	e.Apply(cfg)
	require.Eventually(t, func() bool { return w.Settings().BatchSize == 7 }, 5*time.Second, 5*time.Millisecond,
		"the settings are read again every SettingsInterval")
	require.Eventually(t, func() bool { return obs.sawRequest(7) }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())
}

// The listening session survives an idle_session_timeout set on the
// server, role or database: it turns the timeout off for itself.
func TestListenerSurvivesIdleSessionTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "a"}))
	pcfg := e.Pool.Config()
	pcfg.ConnConfig.RuntimeParams["idle_session_timeout"] = "200ms" // as ALTER ROLE … SET would
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	var logs pgseqtest.Buffer
	w, err := queue.NewWorker(queue.Config{
		Pool: pool, Schema: e.Schema, PollInterval: 10 * time.Millisecond,
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Handlers: map[string]queue.Handler{"a": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, w.Listening, 10*time.Second, 5*time.Millisecond)
	time.Sleep(time.Second) // five idle timeouts
	require.True(t, w.Listening())
	require.NotContains(t, logs.String(), "listening for configuration changes failed")
	require.NoError(t, stop())
}

// A worker that stops unregisters: it is gone from the workers table, not
// left to be shown dead.
func TestStoppedWorkerUnregisters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "a"}))
	var logs pgseqtest.Buffer
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, WorkerID: "leaving", PollInterval: 10 * time.Millisecond,
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Handlers: map[string]queue.Handler{"a": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	stop := run(t, w)
	var n int
	require.Eventually(t, func() bool {
		e.Scalar(&n, `SELECT count(*) FROM {{schema}}.workers WHERE id = 'leaving'`)
		return n == 1
	}, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())
	e.Scalar(&n, `SELECT count(*) FROM {{schema}}.workers WHERE id = 'leaving'`)
	require.Zero(t, n, "the worker's log:\n%s", logs.String())
}
