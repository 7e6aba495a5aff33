package queue

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// completers is how many completion calls a session runs at once. With
// complete_and_take a completion also claims the limited tasks its units
// pass to, so it carries what the fetcher's claims carry for unlimited
// tasks: two calls in flight keep two server processes busy, as claims and
// completions do for unlimited tasks.
const completers = 2

// completeFunc is a completer's one database call: it completes ids for the
// worker and returns how many were still the worker's to complete. With
// take it also takes over the waiting tasks the slot units of ids pass to
// (complete_and_take) and returns them, claimed for the worker; without,
// it completes only (complete) and returns none. On error it returns no
// tasks.
type completeFunc func(ctx context.Context, ids []int64, take bool) (accepted int, taken []*Task, err error)

// completerConfig wires a completer to its session. Every field is
// required.
type completerConfig struct {
	// id is the worker's id, for the log.
	id string
	// bg is the context of the database calls, which never follow the
	// session's cancellation (see callTimeout).
	bg context.Context
	// flushInterval is the longest a finished task waits to be completed
	// (Config.FlushInterval).
	flushInterval time.Duration
	// flushSize is how many finished tasks a completion takes at most and
	// how many waiting complete them at once (Worker.flushSize).
	flushSize func() int
	// complete is the database call.
	complete completeFunc
	// handOff receives the tasks a completion took over (never empty).
	handOff func(tasks []*Task)
	// lost is called when a completion that could take tasks over failed
	// with an unknown outcome: tasks may have been taken unseen.
	lost func()
	// flushed is called after each successful completion: slot units may
	// have been freed.
	flushed func()
	obs     Observer
	log     *slog.Logger
}

// completer completes a session's finished tasks in batches (see run). It
// owns the batch and the lock that guards it: the session's handlers add
// finished tasks, its fetcher reads the backlog, its shutdown stops taking
// tasks over and stops the completer after a final flush.
type completer struct {
	completerConfig

	flushNow chan struct{} // signalled on the first and the FlushSize-th finished task
	quit     chan struct{} // closed to stop run after a final flush
	running  sync.WaitGroup

	// mu guards the fields below. A caller holding the session's lock may
	// take it (finish, declaredDead, shutdown); the completer never takes
	// the session's lock while holding it.
	mu   sync.Mutex
	done []int64 // finished, to complete
	// holding has the ids in done whose tasks hold a slot unit: a
	// completion hands those units over (complete_and_take).
	holding   map[int64]struct{}
	spare     []int64   // the other completion buffer
	firstDone time.Time // when done became non-empty
	// backlog counts finished tasks not completed yet: in done or in a
	// completion call. The fetcher waits while it is over maxBacklog, so
	// slow completions throttle claims instead of piling up tasks.
	backlog int
	// urgent asks run to complete what is done now (see add).
	urgent bool
	// closing is set when shutdown begins: completions then complete only,
	// as a closing session must claim nothing it would hand back.
	closing bool
	// dropped is set when the worker was declared dead: finished tasks are
	// no longer its to complete and are dropped.
	dropped bool
}

func newCompleter(cfg completerConfig) *completer {
	return &completer{
		completerConfig: cfg,
		flushNow:        make(chan struct{}, 1),
		quit:            make(chan struct{}),
		holding:         make(map[int64]struct{}),
	}
}

// start runs the completer until stop.
func (c *completer) start() { c.running.Go(c.run) }

// stop completes what is left (see run) and returns once the completer
// has stopped and no completion is in flight.
func (c *completer) stop() {
	close(c.quit)
	c.running.Wait()
}

// add queues finished task id for the next completion; holdsUnit says the
// task holds a slot unit, urgent that it must be completed now. It reports
// whether the caller must wake the completer (flushSoon) once it has
// reported the task handled: on the first finished task, the FlushSize-th
// or an urgent one.
func (c *completer) add(id int64, holdsUnit, urgent bool) (wake bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = append(c.done, id)
	if holdsUnit {
		c.holding[id] = struct{}{}
	}
	c.backlog++
	n := len(c.done)
	if n == 1 {
		c.firstDone = time.Now()
	}
	if urgent {
		c.urgent = true
	}
	return n == 1 || n == c.flushSize() || urgent
}

// flushSoon wakes the completer (see add).
func (c *completer) flushSoon() { signal(c.flushNow) }

// pending returns the backlog: finished tasks not completed yet.
func (c *completer) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backlog
}

// stopTaking makes every later completion complete only (shutdown).
func (c *completer) stopTaking() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
}

// drop discards the finished tasks, now and from now on: the worker was
// declared dead.
func (c *completer) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropped = true
	c.backlog -= len(c.done)
	c.done = c.done[:0]
}

// run flushes finished tasks in batches: as soon as FlushSize are waiting,
// or FlushInterval after the first finished, with up to completers calls in
// flight, until quit is closed.
func (c *completer) run() {
	slots := make(chan struct{}, completers)
	var inflight sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-c.flushNow:
		case <-timer.C:
		case <-c.quit:
			inflight.Wait()
			for failures := 0; failures < 3; {
				c.mu.Lock()
				n := len(c.done)
				c.mu.Unlock()
				if n == 0 {
					break
				}
				if !c.flush() {
					failures++
					time.Sleep(100 * time.Millisecond)
				}
			}
			return
		}
		for {
			c.mu.Lock()
			n, first, urgent := len(c.done), c.firstDone, c.urgent
			c.mu.Unlock()
			if n == 0 {
				break
			}
			wait := c.flushInterval - time.Since(first)
			if n < c.flushSize() && wait > 0 && !urgent {
				timer.Reset(wait)
				break
			}
			if len(slots) > 0 && !c.doneMostlyHolds() {
				// A second call in flight pays only where completions do
				// the claiming (most finished tasks hold units, which pass
				// to the next tasks of their types); where most are
				// unlimited the fetcher's claims keep the other server
				// process busy, and a second call would only split the
				// batches (one limited type among many: 579 completion
				// calls per 100,000 tasks, 560 without the second call;
				// results/limits-design.md, "Seventh round").
				break
			}
			acquired := false
			select {
			case slots <- struct{}{}:
				acquired = true
			default:
			}
			if !acquired {
				// Both calls are in flight: the first to end signals
				// flushNow and this loop runs again.
				break
			}
			ids, ok := c.takeDone()
			if !ok {
				<-slots
				break
			}
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				if !c.flushIDs(ids) {
					// The completion failed: try again shortly.
					time.Sleep(100 * time.Millisecond)
				}
				<-slots
				signal(c.flushNow)
			}()
		}
	}
}

// flush completes the finished tasks in one call. It reports whether there
// was nothing to do or the call succeeded; on failure the tasks stay queued
// for the next flush.
func (c *completer) flush() bool {
	ids, ok := c.takeDone()
	if !ok {
		return true
	}
	return c.flushIDs(ids)
}

// takeDone takes up to FlushSize finished tasks to complete in one call; false
// when there are none (or the worker was declared dead: they are dropped).
// At most FlushSize per call: a call's cost grows with its array, and one
// slow call must not make the next one bigger still.
func (c *completer) takeDone() ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.done) == 0 || c.dropped {
		c.backlog -= len(c.done)
		c.done = c.done[:0]
		return nil, false
	}
	n := min(len(c.done), c.flushSize())
	c.urgent = false
	ids := append(c.spare[:0], c.done[:n]...)
	c.spare = nil
	c.done = append(c.done[:0], c.done[n:]...)
	return ids, true
}

// doneMostlyHolds reports whether at least half of the finished tasks
// waiting to be completed (and at least one) hold a slot unit.
func (c *completer) doneMostlyHolds() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.holding) == 0 {
		return false
	}
	holders := 0
	for _, id := range c.done {
		if _, ok := c.holding[id]; ok {
			holders++
		}
	}
	return mostlyHolders(holders, len(c.done))
}

// mostlyHolders is the rule for whether completions of n finished tasks,
// holders of them holding slot units, do the claiming (a second call in
// flight, complete_and_take): at least half of them, and at least one.
func mostlyHolders(holders, n int) bool {
	return holders > 0 && 2*holders >= n
}

// takeHolders removes ids from holding and returns how many were there.
func (c *completer) takeHolders(ids []int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.holding) == 0 {
		return 0
	}
	found := 0
	for _, id := range ids {
		if _, ok := c.holding[id]; ok {
			delete(c.holding, id)
			found++
		}
	}
	return found
}

// flushIDs completes ids in one call; on failure they go back to done.
func (c *completer) flushIDs(ids []int64) bool {
	ctx, cancel := callContext(c.bg)
	defer cancel()
	start := time.Now()
	accepted, handed, handedOff, err := c.completeCall(ctx, ids)
	c.obs.Completed(len(ids), accepted, time.Since(start), err)
	if len(handed) > 0 {
		c.obs.HandedOff(len(handed))
		c.obs.Received(handed, true)
		c.handOff(handed)
	}

	if err != nil && handedOff && outcomeUnknown(err) {
		// Like a claim whose outcome is unknown: tasks may have been handed
		// to this worker unseen. End the session; under a new id the leader
		// recovers whatever the old one holds.
		c.log.Error("completing tasks failed after the request was sent; tasks may have been handed over unseen",
			"worker", c.id, "error", err)
		c.lost()
	}
	c.mu.Lock()
	if err != nil {
		c.log.Warn("completing tasks failed; retrying", "worker", c.id, "tasks", len(ids), "error", err)
		if len(c.done) == 0 {
			c.firstDone = time.Now()
		}
		c.done = append(ids, c.done...)
		c.mu.Unlock()
		return false
	}
	if accepted < len(ids) {
		c.log.Warn("some completed tasks were no longer this worker's (recovered by the leader)",
			"worker", c.id, "tasks", len(ids), "completed", accepted)
	}
	c.backlog -= len(ids)
	c.spare = ids[:0]
	c.mu.Unlock()
	c.flushed()
	return true
}

// completeCall completes ids. When at least half of them hold slot units
// and the session is not closing, it takes over the waiting tasks those
// units pass to (complete_and_take): they come back claimed for this
// worker. Else it completes only (plain complete), which opens those tasks
// for the next claim instead: unlimited tasks have no units to pass, a
// batch of mostly unlimited tasks is claimed by the fetcher anyway (and a
// few tasks taken over would finish out of step with its batches), and a
// closing session must claim nothing it would hand back.
// takeOver reports whether the call could hand tasks over.
func (c *completer) completeCall(ctx context.Context, ids []int64) (accepted int, handed []*Task, takeOver bool, err error) {
	holders := c.takeHolders(ids)
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	takeOver = mostlyHolders(holders, len(ids)) && !closing
	accepted, handed, err = c.complete(ctx, ids, takeOver)
	return accepted, handed, takeOver, err
}

// completeTasks is the session's completeFunc: complete, or with take
// complete_and_take, which takes at most limitedCap tasks.
func (s *session) completeTasks(ctx context.Context, ids []int64, take bool) (accepted int, taken []*Task, err error) {
	if !take {
		err = s.w.db.QueryRow(ctx, s.w.sql.complete, ids, s.id).Scan(&accepted)
		return accepted, nil, err
	}
	rows, err := s.w.db.Query(ctx, s.w.sql.completeAndTake, ids, s.id, s.limitedCap(len(ids)))
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id *int64
		var typ *string
		var payload []byte
		var attempts *int
		if err := rows.Scan(&accepted, &id, &typ, &payload, &attempts); err != nil {
			return 0, nil, err
		}
		if id != nil {
			taken = append(taken, &Task{ID: *id, Type: *typ, Payload: payload, Attempts: *attempts, holdsUnit: true})
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	return accepted, taken, nil
}
