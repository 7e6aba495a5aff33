package queue_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/queue"
)

// With a limit that binds and handlers slower than a completion's round
// trip, workers hold reserved successors (migration 036) and start one in
// place of each task that ends. Every task runs once, no more handlers of
// the type run at once than its limit, the database sees reservations
// while the workers run, and none is left once they have stopped: what
// they held at shutdown went back to the lane.
func TestWorkersStartReservedSuccessors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 3}))
	const n = 120
	enqueueOfType(t, e, "bound", n)

	var mu sync.Mutex
	seen := map[int64]int{}
	var handlers peak
	handler := func(ctx context.Context, task *queue.Task) error {
		handlers.enter()
		defer handlers.leave()
		mu.Lock()
		seen[task.ID]++
		mu.Unlock()
		return outlastCompletion(ctx)
	}
	var stops []func() error
	for range 2 {
		w, err := queue.NewWorker(queue.Config{
			Pool: e.Pool, Schema: e.Schema, PoolSize: 3, BatchSize: 10,
			Handlers: map[string]queue.Handler{"bound": handler},
		})
		require.NoError(t, err)
		stops = append(stops, run(t, w))
	}

	// Sampled from outside: reservations show while the workers run.
	sawReserved := false
	require.Eventually(t, func() bool {
		var reserved, left int
		e.Scalar(&reserved, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'claimed'`)
		e.Scalar(&left, `SELECT count(*) FROM {{schema}}.tasks WHERE status <> 'completed'`)
		sawReserved = sawReserved || reserved > 0
		return left == 0
	}, 60*time.Second, 2*time.Millisecond)
	for _, stop := range stops {
		require.NoError(t, stop())
	}
	require.True(t, sawReserved, "the workers reserved successors")
	require.LessOrEqual(t, handlers.most.Load(), int64(3), "no more handlers ran at once than the limit")
	mu.Lock()
	require.Len(t, seen, n)
	for id, runs := range seen {
		require.Equal(t, 1, runs, "task %d ran once", id)
	}
	mu.Unlock()
	e.RequireInvariants()
}

// Handlers that fail now and then: a failed task gives its unit back
// (fail) and its worker gives back the reservations it can no longer start
// in its place; a started successor that fails is failed once its start
// has been reported. Every task completes in the end, nothing stays
// reserved.
func TestReservedSuccessorsSurviveFailingHandlers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 3}))
	const n = 120
	enqueueOfType(t, e, "bound", n)
	var handlers peak
	var failures atomic.Int64
	handler := func(ctx context.Context, task *queue.Task) error {
		handlers.enter()
		defer handlers.leave()
		time.Sleep(12 * time.Millisecond)
		if task.Attempts == 1 && task.ID%5 == 0 {
			failures.Add(1)
			return errors.New("first attempts of every fifth task fail")
		}
		return nil
	}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 4, BatchSize: 10,
		Handlers: map[string]queue.Handler{"bound": handler},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return e.StatusCounts()["completed"] == n }, 60*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())
	require.Equal(t, map[string]int{"completed": n}, e.StatusCounts())
	require.Positive(t, failures.Load())
	require.LessOrEqual(t, handlers.most.Load(), int64(3), "no more handlers ran at once than the limit")
	e.RequireInvariants()
}

// An apply lowering the limit while workers hold reservations: running,
// sampled from outside, never rises after the apply (a reservation made
// before it starts once, on its predecessor's unit), falls to the new limit
// and stays there; every task completes once.
func TestLoweringALimitWhileWorkersHoldReservations(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 4}))
	const n = 150
	enqueueOfType(t, e, "bound", n)
	handler := func(ctx context.Context, _ *queue.Task) error { return outlastCompletion(ctx) }
	for range 2 {
		w, err := queue.NewWorker(queue.Config{
			Pool: e.Pool, Schema: e.Schema, PoolSize: 4, BatchSize: 10,
			Handlers: map[string]queue.Handler{"bound": handler},
		})
		require.NoError(t, err)
		run(t, w)
	}
	running := func() (r, reserved int) {
		e.Row(`SELECT count(*) FILTER (WHERE status = 'running'), count(*) FILTER (WHERE status = 'claimed') FROM {{schema}}.tasks`,
			nil, &r, &reserved)
		return r, reserved
	}
	require.Eventually(t, func() bool {
		r, reserved := running()
		return r == 4 && reserved > 0
	}, 30*time.Second, time.Millisecond, "the workers run the limit's 4 tasks and hold reservations")

	lowered := config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 2})
	e.Apply(lowered)
	prev, settled := 4, false
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, _ := running()
		if settled {
			require.LessOrEqual(t, r, 2, "once within the new limit, running stays within it")
		} else {
			require.LessOrEqual(t, r, prev, "running never rises while the lowered limit drains")
			prev = r
			settled = r <= 2
		}
		if e.StatusCounts()["completed"] == n {
			break
		}
		require.True(t, time.Now().Before(deadline), "the drain did not finish: %v", e.StatusCounts())
		time.Sleep(2 * time.Millisecond)
	}
	require.True(t, settled)
	e.RequireInvariants()
}

// Slow handlers and a limit that does not bind: the worker asks for
// reservations and gets none (no lane holds a task), so its tasks come by
// claims, and a completion must still wake its fetcher. With an hour's
// poll interval a worker whose fetcher waited for it would stall after its
// first batch; this one drains.
func TestSlowHandlersWithAnUnboundLimitKeepClaiming(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "loose", Concurrency: 1000}))
	const n = 200
	enqueueOfType(t, e, "loose", n)
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 4, BatchSize: 4, PollInterval: time.Hour,
		Handlers: map[string]queue.Handler{"loose": func(context.Context, *queue.Task) error {
			time.Sleep(5 * time.Millisecond)
			return nil
		}},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return e.StatusCounts()["completed"] == n }, 30*time.Second, 5*time.Millisecond,
		"the worker stalled: its fetcher waits for its poll interval")
	require.NoError(t, stop())
	e.RequireInvariants()
}

// A worker stopping while it holds reservations gives them back with its
// unstarted tasks: after Stop nothing is reserved, and the tasks it did not
// run wait in their lane (or hold the units freed) as if never reserved.
func TestStoppingWorkerGivesReservationsBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 2}))
	enqueueOfType(t, e, "bound", 60)
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 2, BatchSize: 10,
		Handlers: map[string]queue.Handler{"bound": func(ctx context.Context, _ *queue.Task) error {
			_ = outlastCompletion(ctx) // stopped early, it still succeeds
			return nil
		}},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool {
		var reserved int
		e.Scalar(&reserved, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'claimed'`)
		return reserved > 0
	}, 30*time.Second, 2*time.Millisecond, "the worker reserves successors")
	require.NoError(t, stop())

	var reserved, owned int
	e.Scalar(&reserved, `SELECT count(*) FROM {{schema}}.tasks WHERE status IN ('claimed', 'running')`)
	e.Scalar(&owned, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending' AND (worker_id IS NOT NULL OR claimed_at IS NOT NULL)`)
	require.Zero(t, reserved, "nothing reserved or running after Stop")
	require.Zero(t, owned, "handed back as never reserved")
	e.RequireInvariants()
}

// enqueueOfType enqueues n tasks of taskType in one batch.
func enqueueOfType(t *testing.T, e *env, taskType string, n int) {
	t.Helper()
	batch := make([]queue.NewTask, n)
	for i := range batch {
		batch[i] = queue.NewTask{Type: taskType}
	}
	_, err := e.client.EnqueueBatch(context.Background(), batch)
	require.NoError(t, err)
}

// peak counts the handlers running at once and keeps the most seen.
type peak struct{ now, most atomic.Int64 }

func (p *peak) enter() {
	now := p.now.Add(1)
	for m := p.most.Load(); now > m && !p.most.CompareAndSwap(m, now); m = p.most.Load() {
	}
}

func (p *peak) leave() { p.now.Add(-1) }

// outlastCompletion is a handler's work far slower than a completion, even
// on a loaded machine (workers reserve successors only while their
// handlers outlast their calls): 40 ms, or until ctx ends.
func outlastCompletion(ctx context.Context) error {
	select {
	case <-time.After(40 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
