package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// session holds one registration's pipeline: a fetcher claiming batches
// into jobs (fetch.go), PoolSize handler goroutines, a completer flushing
// finished tasks (complete.go), a heartbeat (heartbeat.go) and an elector's
// leader loop (leader.go); shutdown.go ends it.
type session struct {
	w  *Worker
	id string

	// ctx ends when Run's context is cancelled or the worker is declared
	// dead; it stops the fetcher, heartbeat and leader loops.
	ctx    context.Context
	cancel context.CancelFunc
	// hctx is the handlers' context: cancelled when the shutdown grace
	// period is over or the worker is declared dead.
	hctx          context.Context
	cancelHandler context.CancelFunc
	// bg is for database calls, which never follow ctx (see callTimeout).
	bg context.Context

	dead atomic.Bool
	// lost is set when a completion that could hand tasks over failed with
	// an unknown outcome: the session ends and the worker carries on under
	// a new id.
	lost atomic.Bool

	jobs   chan *Task
	queued atomic.Int64  // tasks in jobs
	room   chan struct{} // signalled when queued drops below the batch size
	// freed is signalled after a completion: slots of limited types may
	// have been released, so an idle fetcher claims again at once.
	freed chan struct{}

	// mu guards running, closing and handBack, and the moves of a task
	// between running and the completer's batch (finish, declaredDead):
	// a shutdown finds every task either running or in the batch.
	mu      sync.Mutex
	running map[int64]*Task // handlers in progress
	// handlerTime is the handlers' mean run time (moving average), for
	// limitedCap.
	handlerTime movingAverage
	// closing is set when shutdown begins: from then on tasks handed over
	// by completions go to handBack, released with the unstarted ones.
	closing  bool
	handBack []int64

	completer *completer
	elector   *elector

	handlers sync.WaitGroup
	loops    sync.WaitGroup // heartbeat and leader loops
}

// maxQueued bounds the tasks claimed ahead: two of the largest batches a
// queue may declare.
const maxQueued = 2 * 10000

func newSession(ctx context.Context, w *Worker, id string) *session {
	s := &session{
		w:       w,
		id:      id,
		bg:      context.WithoutCancel(ctx),
		jobs:    make(chan *Task, maxQueued),
		room:    make(chan struct{}, 1),
		freed:   make(chan struct{}, 1),
		running: make(map[int64]*Task, w.cfg.PoolSize),
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.hctx, s.cancelHandler = context.WithCancel(s.bg)
	s.completer = newCompleter(completerConfig{
		id:            id,
		bg:            s.bg,
		flushInterval: w.cfg.FlushInterval,
		flushSize:     w.flushSize,
		complete:      s.completeTasks,
		handOff:       s.accept,
		lost: func() {
			s.lost.Store(true)
			s.cancel()
		},
		flushed: func() {
			signal(s.freed)
			signal(s.room)
		},
		obs: w.obs,
		log: w.log,
	})
	s.elector = &elector{w: w, id: id, bg: s.bg}
	return s
}

func (s *session) start() {
	for range s.w.cfg.PoolSize {
		s.handlers.Go(s.work)
	}
	s.completer.start()
	s.loops.Go(s.heartbeat)
	s.loops.Go(func() { s.elector.run(s.ctx) })
}

// call returns a context for one database call.
func (s *session) call() (context.Context, context.CancelFunc) {
	return callContext(s.bg)
}

// work is one handler goroutine: it runs tasks until jobs is closed.
func (s *session) work() {
	for t := range s.jobs {
		if s.queued.Add(-1) < int64(s.w.batchSize()) {
			signal(s.room)
		}
		s.mu.Lock()
		if s.dead.Load() {
			s.mu.Unlock()
			continue
		}
		if s.closing {
			// Taken between the shutdown's start and its drain of jobs:
			// not started, handed back with the other queued tasks.
			s.handBack = append(s.handBack, t.ID)
			s.mu.Unlock()
			continue
		}
		s.running[t.ID] = t
		s.mu.Unlock()

		s.w.obs.Started(t)
		start := time.Now()
		err := s.run(t)
		took := time.Since(start)
		s.handlerTime.observe(took)
		if err != nil {
			s.fail(t, err, took)
		} else {
			s.finish(t, took)
		}
	}
}

// run calls t's handler, turning a panic into an error.
func (s *session) run(t *Task) (err error) {
	h := (*s.w.handlers.Load())[t.Type]
	if h == nil {
		return NoRetry(fmt.Errorf("no handler for task type %q on worker %s", t.Type, s.id))
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: stack()}
		}
	}()
	return h(s.hctx, t)
}

// finish queues t, whose handler succeeded after running for took, for the
// next batched completion. A slow task holding a unit is completed at once:
// the unit passes on sooner, and batching saves little where tasks finish
// slowly.
func (s *session) finish(t *Task, took time.Duration) {
	urgent := t.holdsUnit && took > s.w.cfg.FlushInterval
	s.mu.Lock()
	delete(s.running, t.ID)
	if t.abandoned {
		s.mu.Unlock()
		s.w.obs.Handled(t, took, nil, true)
		return
	}
	// Into the batch under s.mu: a shutdown past its grace period finds
	// the task either running (and releases it) or in the batch (and
	// completes it).
	wake := s.completer.add(t.ID, t.holdsUnit, urgent)
	s.mu.Unlock()
	s.w.obs.Handled(t, took, nil, false)
	if wake {
		s.completer.flushSoon()
	}
}

// fail records the failure of a handler that ran for took.
func (s *session) fail(t *Task, cause error, took time.Duration) {
	s.mu.Lock()
	delete(s.running, t.ID)
	abandoned := t.abandoned
	s.mu.Unlock()
	s.w.obs.Handled(t, took, cause, abandoned)
	if abandoned {
		return
	}
	msg := cause.Error()
	var pe *PanicError
	if errors.As(cause, &pe) {
		msg += "\n\n" + string(pe.Stack)
	}
	if len(msg) > maxErrorLen {
		msg = msg[:maxErrorLen]
	}
	retry := retryable(cause)
	ctx, cancel := s.call()
	defer cancel()
	start := time.Now()
	var status *string
	err := s.w.db.QueryRow(ctx, s.w.sql.fail, t.ID, s.id, msg, retry).Scan(&status)
	latency := time.Since(start)
	got := ""
	if status != nil {
		got = *status
	}
	if err != nil {
		s.w.log.Error("recording a task's failure failed; the task stays running until its worker is declared dead",
			"worker", s.id, "task", t.ID, "type", t.Type, "cause", cause, "error", err)
	} else {
		s.w.log.Debug("task failed", "worker", s.id, "task", t.ID, "type", t.Type, "status", got, "error", cause)
	}
	s.w.obs.Failed(t, got, cause, latency)
}

// maxErrorLen bounds the error text stored with a failed task.
const maxErrorLen = 8 << 10

// accept queues tasks that a completion handed to this worker. Once the
// session is closing (or the queue is full) they are kept to be handed back
// at shutdown instead: no send on jobs after shutdown drained it.
func (s *session) accept(tasks []*Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tasks {
		if s.closing {
			s.handBack = append(s.handBack, t.ID)
			continue
		}
		s.queued.Add(1)
		select {
		case s.jobs <- t:
		default:
			s.queued.Add(-1)
			s.handBack = append(s.handBack, t.ID)
		}
	}
}

// limitedHorizon bounds how long a task holding a slot unit should wait in
// this worker's queue before a handler starts it: a unit held by a task
// that waits is a unit another worker could be running.
const limitedHorizon = 2 * time.Millisecond

// limitedCap is how many tasks holding slot units this worker takes in one
// claim or completion: what its idle handlers can start now, plus what its
// handlers get through within limitedHorizon at their mean run time, less
// what already waits in its queue. nil (no cap) when that is at least want:
// with fast handlers a worker takes whole batches, with slow ones (a limit
// that binds) it leaves units to workers that can start them.
func (s *session) limitedCap(want int) *int {
	mean := s.handlerTime.get()
	if mean <= 0 {
		return nil
	}
	s.mu.Lock()
	running := len(s.running)
	s.mu.Unlock()
	pool := s.w.cfg.PoolSize
	n := pool - running - int(s.queued.Load()) + int(float64(pool)*float64(limitedHorizon)/float64(mean))
	if n >= want {
		return nil
	}
	n = max(n, 0)
	return &n
}

// movingAverage is an exponentially weighted moving average of durations,
// safe for concurrent use.
type movingAverage struct {
	ns atomic.Int64
}

func (m *movingAverage) observe(d time.Duration) {
	for {
		old := m.ns.Load()
		next := int64(d)
		if old != 0 {
			next = old + (int64(d)-old)/8
		}
		if m.ns.CompareAndSwap(old, next) {
			return
		}
	}
}

func (m *movingAverage) get() time.Duration { return time.Duration(m.ns.Load()) }

// signal wakes the receiver of a one-slot channel, if not already woken.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// stack returns the calling goroutine's stack.
func stack() []byte {
	buf := make([]byte, 16<<10)
	return buf[:runtime.Stack(buf, false)]
}
