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
	// reserved holds the reserved successors not started, by type, in
	// lane order (migration 036): one starts in place of a task of its
	// type that ends. Never more of a type than the session runs of it
	// (trimReserved gives the rest back).
	reserved map[string][]*Task
	// reserving counts the successors asked for by completions in flight
	// (see reserveBudget).
	reserving int

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
		w:        w,
		id:       id,
		bg:       context.WithoutCancel(ctx),
		jobs:     make(chan *Task, maxQueued),
		room:     make(chan struct{}, 1),
		freed:    make(chan struct{}, 1),
		running:  make(map[int64]*Task, w.cfg.PoolSize),
		reserved: make(map[string][]*Task),
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.hctx, s.cancelHandler = context.WithCancel(s.bg)
	s.completer = newCompleter(completerConfig{
		id:             id,
		bg:             s.bg,
		flushInterval:  w.cfg.FlushInterval,
		flushSize:      w.flushSize,
		complete:       s.completeTasks,
		nothingRunning: s.nothingRunning,
		handOff:        s.accept,
		reserved:       s.keepReserved,
		lost: func() {
			s.lost.Store(true)
			s.cancel()
		},
		flushed: func(kept bool) {
			if !kept {
				signal(s.freed)
			}
			signal(s.room)
		},
		obs: w.obs,
		log: w.log,
	})
	s.elector = &elector{w: w, id: id, bg: s.bg}
	return s
}

// nothingRunning reports whether the session runs no task and has none
// queued: its finished tasks are all it holds, so no other finishes before
// a flush interval is over.
func (s *session) nothingRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nothingRunningLocked()
}

// nothingRunningLocked is nothingRunning with s.mu held.
func (s *session) nothingRunningLocked() bool {
	return len(s.running) == 0 && s.queued.Load() == 0
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
		// Out of queued and into running under s.mu: nothingRunning
		// never sees a task taken from jobs as neither.
		s.mu.Lock()
		if s.queued.Add(-1) < int64(s.w.batchSize()) {
			signal(s.room)
		}
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
		for t != nil {
			t = s.handle(t)
		}
	}
}

// handle runs t, which is in s.running, and reports its outcome. It
// returns the reserved successor started in t's place, to run next on this
// handler goroutine, if any.
func (s *session) handle(t *Task) *Task {
	s.w.obs.Started(t)
	start := time.Now()
	err := s.run(t)
	took := time.Since(start)
	s.handlerTime.observe(took)
	if !s.awaitPromotion(t) {
		// A successor refused (or never reported): not the worker's.
		s.mu.Lock()
		delete(s.running, t.ID)
		s.mu.Unlock()
		s.w.obs.Handled(t, took, err, true)
		s.trimReserved(t.Type)
		return nil
	}
	if err != nil {
		s.fail(t, err, took)
		return nil
	}
	return s.finish(t, took)
}

// awaitPromotion waits, for a reserved successor started in place of a
// finished task, until the completion reporting its start has returned,
// and reports whether it was promoted (the worker's now, running on the
// finished task's unit): its outcome can be reported only then. Other
// tasks are the worker's from the start.
func (s *session) awaitPromotion(t *Task) bool {
	if t.promotion == nil {
		return true
	}
	select {
	case <-t.promotion:
		return t.promoted
	case <-s.hctx.Done():
		// The worker was declared dead or its shutdown's grace period is
		// over: the task was abandoned.
		return false
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
// slowly. When the session holds a reserved successor of t's type, it
// starts in t's place (returned, to run next): the completion passes t's
// unit to it.
func (s *session) finish(t *Task, took time.Duration) *Task {
	urgent := t.holdsUnit && took > s.w.cfg.FlushInterval
	s.mu.Lock()
	delete(s.running, t.ID)
	if t.abandoned {
		s.mu.Unlock()
		s.w.obs.Handled(t, took, nil, true)
		return nil
	}
	// Into the batch under s.mu: a shutdown past its grace period finds
	// the task either running (and releases it) or in the batch (and
	// completes it); a successor started in t's place is running.
	// Not while tasks wait in jobs: they hold their units already, and a
	// handler that went on from successor to successor would leave them
	// waiting as long as successors come (t's unit then passes on in the
	// completion, as without reservations).
	var next *Task
	if t.holdsUnit && !s.closing && s.queued.Load() == 0 {
		if q := s.reserved[t.Type]; len(q) > 0 {
			next, s.reserved[t.Type] = q[0], q[1:]
			next.holdsUnit = true
			next.Attempts++ // as the promotion counts it
			next.predecessor = t.ID
			next.promotion = make(chan struct{})
			s.running[next.ID] = next
		}
	}
	var wake bool
	if next != nil {
		wake = s.completer.addStarted(t.ID, next)
	} else {
		wake = s.completer.add(t.ID, t.holdsUnit, t.handedOff, urgent)
		// The session's last task: the completer may flush at once (see
		// nothingRunning).
		wake = wake || s.nothingRunningLocked()
	}
	s.mu.Unlock()
	s.w.obs.Handled(t, took, nil, false)
	if wake {
		s.completer.flushSoon()
	}
	if next != nil {
		s.w.obs.HandedOff(1)
		s.w.obs.Received([]*Task{next}, true)
	}
	return next
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
	if t.holdsUnit {
		s.trimReserved(t.Type)
	}
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

// keepReserved keeps the successors a completion reserved for this worker
// (see reserved), asked being how many it asked for (see reserveBudget),
// and gives back those it cannot start: all of them once
// the session is closing, else those beyond what it runs of their types
// (a task of the type may have ended while the completion was in flight).
func (s *session) keepReserved(tasks []*Task, asked int) {
	s.mu.Lock()
	s.reserving -= asked
	types := map[string]bool{}
	for _, t := range tasks {
		if s.closing || s.dead.Load() {
			s.handBack = append(s.handBack, t.ID)
			continue
		}
		s.reserved[t.Type] = append(s.reserved[t.Type], t)
		types[t.Type] = true
	}
	s.mu.Unlock()
	for typ := range types {
		s.trimReserved(typ)
	}
}

// trimReserved gives back the reserved successors of typ beyond the tasks
// of typ the session runs (the last ones in lane order): a reservation
// starts only in place of one of them, and one that never could would sit
// out of its lane.
func (s *session) trimReserved(typ string) {
	s.mu.Lock()
	q := s.reserved[typ]
	if len(q) == 0 || s.closing || s.dead.Load() || s.queued.Load() > 0 {
		// (Tasks waiting in jobs may be of typ: they will run first.)
		s.mu.Unlock()
		return
	}
	running := 0
	for _, t := range s.running {
		if t.Type == typ && t.holdsUnit {
			running++
		}
	}
	var back []int64
	for len(q) > running {
		back = append(back, q[len(q)-1].ID)
		q = q[:len(q)-1]
	}
	s.reserved[typ] = q
	s.mu.Unlock()
	if len(back) == 0 {
		return
	}
	ctx, cancel := s.call()
	defer cancel()
	start := time.Now()
	var n int
	err := s.w.db.QueryRow(ctx, s.w.sql.release, back, s.id).Scan(&n)
	s.w.obs.Released(len(back), time.Since(start), err)
	if err != nil {
		s.w.log.Warn("giving back reserved tasks failed; they return to their lane when the worker stops or is declared dead",
			"worker", s.id, "type", typ, "tasks", len(back), "error", err)
	}
}

// trimAllReserved trims the reservations of every type (trimReserved): the
// fetcher calls it when a claim found nothing, so that a reservation no
// task can start in place of any more does not stay out of its lane.
func (s *session) trimAllReserved() {
	s.mu.Lock()
	types := make([]string, 0, len(s.reserved))
	for typ, q := range s.reserved {
		if len(q) > 0 {
			types = append(types, typ)
		}
	}
	s.mu.Unlock()
	for _, typ := range types {
		s.trimReserved(typ)
	}
}

// reserveBudget is how many successors a completion may reserve for this
// worker, and takes them from the budget until doneReserving gives back
// what the call did not use. There is a budget while the worker's handlers
// run longer than a completion's round trip (a unit would otherwise sit
// idle for a noticeable part of each task: binding limits with slow
// handlers), else none (fast handlers pass their units in batches, and a
// reservation would cost every task a second write). The budget is one
// successor per task holding a unit that the worker runs, less those it
// holds or has asked for already, counting as running the inCall finished
// tasks whose units the call may hand back to the worker: as the session
// counts them, not as the database does (its count of running tasks
// includes finished ones whose completions are in flight).
// complete_and_reserve also reserves no more of a type than the worker
// runs of it.
func (s *session) reserveBudget(inCall int) int {
	handler, call := s.handlerTime.get(), s.completer.callTime.get()
	if handler <= 0 || call <= 0 || handler <= call {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return 0
	}
	n := inCall - s.reserving
	for _, t := range s.running {
		if t.holdsUnit {
			n++
		}
	}
	for _, q := range s.reserved {
		n -= len(q)
	}
	n = max(n, 0)
	s.reserving += n
	return n
}

// doneReserving returns to the budget what a failed call asked for
// (keepReserved does for the others).
func (s *session) doneReserving(asked int) {
	if asked == 0 {
		return
	}
	s.mu.Lock()
	s.reserving -= asked
	s.mu.Unlock()
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
