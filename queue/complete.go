package queue

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// completers is how many completion calls a session runs at once. With
// complete_and_take a completion also claims the limited tasks its units
// pass to, so it carries what the fetcher's claims carry for unlimited
// tasks: two calls in flight keep two server processes busy, as claims and
// completions do for unlimited tasks.
const completers = 2

// completeFunc is a completer's one database call: it completes ids for the
// worker and reports how many were still the worker's to complete. started
// are the reserved successors the worker started in place of some of ids
// (migration 036): the call passes those tasks' units to them. With take
// it also takes over the waiting tasks the other units pass to
// (complete_and_take) and returns them, claimed for the worker, and may
// reserve successors; without, it completes only (complete) and takes
// nothing. On error it returns nothing.
type completeFunc func(ctx context.Context, ids []int64, started []*Task, take bool) (completeResult, error)

// completeResult is what a completion returned.
type completeResult struct {
	// accepted counts the ids that were still the worker's to complete.
	accepted int
	// taken are the waiting tasks handed to the worker, running.
	taken []*Task
	// reserved are new reserved successors (status claimed, no unit):
	// each starts only in place of a finished task of its type.
	reserved []*Task
	// refused are the started successors that were not promoted: no
	// longer the worker's.
	refused map[int64]bool
	// asked is how many successors the call asked to reserve.
	asked int
}

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
	// nothingRunning reports whether the session runs and queues no task
	// (its finished tasks are all it holds). Called without c.mu held.
	nothingRunning func() bool
	// handOff receives the tasks a completion took over (never empty).
	handOff func(tasks []*Task)
	// reserved receives the successors a completion reserved, and how
	// many it asked for (called when it asked for some or got some).
	reserved func(tasks []*Task, asked int)
	// lost is called when a completion that could take tasks over failed
	// with an unknown outcome: tasks may have been taken unseen.
	lost func()
	// flushed is called after each successful completion: slot units may
	// have been freed. kept says none were: the completion started
	// successors or reserved some (not merely asked for them: a limit that
	// does not bind reserves nothing, and its tasks come by claims), or it
	// took over a waiting task for every unit it released. Its worker's
	// handlers then go from task to task without claims, and the units it
	// handed on were taken or opened (hand_off notifies idle workers
	// then), so its own fetcher need not claim again for them: a claim
	// would find nothing the completion freed, and where a limit binds
	// every completion's empty claim was server work that a unit holder
	// waited behind.
	flushed func(kept bool)
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
	// completion hands those units over (complete_and_take). The value
	// says the task came by such a hand-off (Task.handedOff): one of a
	// cohort of units that cycles through this worker.
	holding map[int64]bool
	// started maps an id in done (or back from a failed call) to the
	// reserved successor started in its place: both go in one call, which
	// passes the one's unit to the other.
	started   map[int64]*Task
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

	// callTime is the successful calls' mean round trip (moving average),
	// for the session's choice to reserve successors.
	callTime movingAverage
}

func newCompleter(cfg completerConfig) *completer {
	return &completer{
		completerConfig: cfg,
		flushNow:        make(chan struct{}, 1),
		quit:            make(chan struct{}),
		holding:         make(map[int64]bool),
		started:         make(map[int64]*Task),
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
// task holds a slot unit, handedOff that it came by a completion's
// hand-off, urgent that it must be completed now. It reports whether the
// caller must wake the completer (flushSoon) once it has reported the task
// handled: on the first finished task, the FlushSize-th or an urgent one.
func (c *completer) add(id int64, holdsUnit, handedOff, urgent bool) (wake bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.addLocked(id, holdsUnit, handedOff, urgent)
}

// addStarted queues finished task id, which held a unit, with the reserved
// successor x the worker started in its place: one call completes id and
// passes its unit to x, at once (urgent: add's wake is always true).
func (c *completer) addStarted(id int64, x *Task) (wake bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started[id] = x
	return c.addLocked(id, true, false, true)
}

// addLocked is add with c.mu held.
func (c *completer) addLocked(id int64, holdsUnit, handedOff, urgent bool) (wake bool) {
	c.done = append(c.done, id)
	if holdsUnit {
		c.holding[id] = handedOff
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

// settle resolves the promotion of started successors: promoted or not
// (refused, or the call will never be made). Called once per successor.
func settle(started []*Task, refused map[int64]bool, ok bool) {
	for _, x := range started {
		x.promoted = ok && !refused[x.ID]
		close(x.promotion)
	}
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
	c.settleLeft()
}

// settleLeft resolves the successors of tasks no call will complete as
// not promoted. c.mu is held.
func (c *completer) settleLeft() {
	for id, x := range c.started {
		delete(c.started, id)
		settle([]*Task{x}, nil, false)
	}
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
			c.mu.Lock()
			c.settleLeft()
			c.mu.Unlock()
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
			// The session's state, read once for both decisions below.
			idle := c.nothingRunning()
			// Nothing running and nothing queued: no task finishes
			// before the interval is over, and waiting would only keep
			// the batch's units idle. Where completions pass units on (a
			// limit that binds, each worker holding a share of its
			// units), every cohort waited the whole interval between its
			// completions: `high` +4.7% over 24 rounds, the type limit
			// `partitioned` is measured against +80%
			// (results/idle-flush/).
			if n < c.flushSize() && wait > 0 && !urgent && !idle {
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
			ids, started, ok := c.takeDone(c.callSize(n, len(slots), idle))
			if !ok {
				<-slots
				break
			}
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				if !c.flushIDs(ids, started) {
					// The completion failed: try again shortly.
					time.Sleep(100 * time.Millisecond)
				}
				<-slots
				signal(c.flushNow)
			}()
		}
	}
}

// minSplit is the fewest tasks a call of a split batch carries (callSize).
const minSplit = 16

// callSize is how many of the n finished tasks the next call takes, with
// inFlight calls in flight counting this one and idle the session running
// and queuing nothing: FlushSize, or half of them when this is the only
// call, the session is idle, most of them hold units and they are no more
// than FlushSize. Their units then come back in two cohorts, one call
// each, and two server processes work on them at once: one worker's
// units of a binding limit otherwise cycled as one cohort, one call at a
// time, with a CPU of two idle. A full batch (or more) splits only when
// every task in it came by a hand-off: a worker that held all of a type's
// units (its first claim took FlushSize of them) cycled them as one cohort
// of exactly FlushSize, one core idle; a full batch its fetcher claimed is
// followed by the fetcher's next claim, which keeps the other core busy,
// and splitting it only added a call (results/split-full-batch/).
func (c *completer) callSize(n, inFlight int, idle bool) int {
	if inFlight != 1 || !idle || n < 2*minSplit {
		return c.flushSize()
	}
	holders, handed, of := c.doneUnits()
	if !mostlyHolders(holders, of) {
		return c.flushSize()
	}
	if n < c.flushSize() || handed == of {
		return (min(n, c.flushSize()) + 1) / 2
	}
	return c.flushSize()
}

// flush completes the finished tasks in one call. It reports whether there
// was nothing to do or the call succeeded; on failure the tasks stay queued
// for the next flush.
func (c *completer) flush() bool {
	ids, started, ok := c.takeDone(c.flushSize())
	if !ok {
		return true
	}
	return c.flushIDs(ids, started)
}

// takeDone takes up to FlushSize finished tasks to complete in one call,
// with the successors started in their places; false when there are none
// (or the worker was declared dead: they are dropped). At most FlushSize
// per call: a call's cost grows with its array, and one slow call must not
// make the next one bigger still.
func (c *completer) takeDone(most int) ([]int64, []*Task, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.done) == 0 || c.dropped {
		c.backlog -= len(c.done)
		c.done = c.done[:0]
		c.settleLeft()
		return nil, nil, false
	}
	n := min(len(c.done), c.flushSize(), most)
	c.urgent = false
	ids := append(c.spare[:0], c.done[:n]...)
	c.spare = nil
	c.done = append(c.done[:0], c.done[n:]...)
	var started []*Task
	if len(c.started) > 0 {
		for _, id := range ids {
			if x, ok := c.started[id]; ok {
				delete(c.started, id)
				started = append(started, x)
			}
		}
	}
	return ids, started, true
}

// doneMostlyHolds reports whether at least half of the finished tasks
// waiting to be completed (and at least one) hold a slot unit.
func (c *completer) doneMostlyHolds() bool {
	holders, _, n := c.doneUnits()
	return mostlyHolders(holders, n)
}

// doneUnits counts the n finished tasks waiting to be completed, the
// holders of a slot unit among them, and the handed of those that came by
// a hand-off (a cohort of units that cycles through this worker, not a
// batch its fetcher claimed).
func (c *completer) doneUnits() (holders, handed, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n = len(c.done)
	if len(c.holding) == 0 {
		return 0, 0, n
	}
	for _, id := range c.done {
		if handedOff, ok := c.holding[id]; ok {
			holders++
			if handedOff {
				handed++
			}
		}
	}
	return holders, handed, n
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

// flushIDs completes ids, with the successors started in their places, in
// one call; on failure they go back to done.
func (c *completer) flushIDs(ids []int64, started []*Task) bool {
	ctx, cancel := callContext(c.bg)
	defer cancel()
	start := time.Now()
	res, handedOff, holders, err := c.completeCall(ctx, ids, started)
	took := time.Since(start)
	c.obs.Completed(len(ids), res.accepted, took, err)
	if err == nil {
		c.callTime.observe(took)
		settle(started, res.refused, true)
		if len(res.refused) > 0 {
			c.log.Warn("reserved tasks started in place of finished ones were refused (no longer this worker's, or no unit of their "+
				"type was freed with them); their results are discarded", "worker", c.id, "tasks", len(res.refused))
		}
	}
	if handed := res.taken; len(handed) > 0 {
		c.obs.HandedOff(len(handed))
		c.obs.Received(handed, true)
		c.handOff(handed)
	}
	if (len(res.reserved) > 0 || res.asked > 0) && c.reserved != nil {
		c.reserved(res.reserved, res.asked)
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
		for _, x := range started {
			c.started[x.predecessor] = x
		}
		c.mu.Unlock()
		return false
	}
	if accepted := res.accepted; accepted < len(ids) {
		c.log.Warn("some completed tasks were no longer this worker's (recovered by the leader)",
			"worker", c.id, "tasks", len(ids), "completed", accepted)
	}
	c.backlog -= len(ids)
	c.spare = ids[:0]
	c.mu.Unlock()
	c.flushed(keptUnits(len(started), len(res.reserved), handedOff, holders, len(res.taken)))
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
func (c *completer) completeCall(ctx context.Context, ids []int64, started []*Task) (res completeResult, takeOver bool, holders int, err error) {
	holders = c.takeHolders(ids)
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	takeOver = mostlyHolders(holders, len(ids)) && !closing
	res, err = c.complete(ctx, ids, started, takeOver)
	return res, takeOver || len(started) > 0, holders, err
}

// keptUnits reports whether a completion freed no slot unit for a claim
// to find: it started or reserved successors, or it could take tasks over
// and took one for each unit holder it completed (each unit went to a
// waiting task claimed for this worker). A completion that took fewer left
// units to their groups or to opened tasks; one of unlimited tasks only
// (no holders, no take) is not counted as keeping anything either: its
// worker's fetcher claims again as before.
func keptUnits(started, reserved int, tookOver bool, holders, taken int) bool {
	if started > 0 || reserved > 0 {
		return true
	}
	return tookOver && holders > 0 && taken >= holders
}

// completeTasks is the session's completeFunc: complete; with take
// complete_and_take, which takes at most limitedCap tasks; with started
// successors, or take and handlers slow enough to reserve successors for
// (reserveBudget), complete_and_reserve.
func (s *session) completeTasks(ctx context.Context, ids []int64, started []*Task, take bool) (res completeResult, err error) {
	reserve := 0
	if take {
		reserve = s.reserveBudget(len(ids))
	}
	defer func() {
		if err != nil {
			s.doneReserving(reserve)
		} else {
			// keepReserved takes them off the budget with the tasks.
			res.asked = reserve
		}
	}()
	if len(started) == 0 && reserve == 0 {
		if !take {
			err = s.w.db.QueryRow(ctx, s.w.sql.complete, ids, s.id).Scan(&res.accepted)
			return res, err
		}
		rows, err := s.w.db.Query(ctx, s.w.sql.completeAndTake, ids, s.id, s.limitedCap(len(ids)))
		if err != nil {
			return res, err
		}
		err = scanCompletion(rows, &res, false)
		return res, err
	}
	startedIDs := make([]int64, len(started))
	for i, x := range started {
		startedIDs[i] = x.ID
	}
	maxTake := s.limitedCap(len(ids))
	if !take {
		zero := 0
		maxTake = &zero
	}
	rows, err := s.w.db.Query(ctx, s.w.sql.completeAndReserve, ids, s.id, startedIDs, maxTake, reserve)
	if err != nil {
		return res, err
	}
	err = scanCompletion(rows, &res, true)
	return res, err
}

// scanCompletion reads a completion's rows into res: complete_and_take's
// (completed, id, type, payload, attempts), with kind
// complete_and_reserve's.
func scanCompletion(rows pgx.Rows, res *completeResult, withKind bool) error {
	defer rows.Close()
	for rows.Next() {
		var id *int64
		var typ, kind *string
		var payload []byte
		var attempts *int
		dest := []any{&res.accepted, &id, &typ, &payload, &attempts}
		if withKind {
			dest = append(dest, &kind)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if id == nil {
			continue
		}
		k := "taken"
		if kind != nil {
			k = *kind
		}
		switch k {
		case "taken":
			res.taken = append(res.taken, &Task{ID: *id, Type: *typ, Payload: payload, Attempts: *attempts, holdsUnit: true, handedOff: true})
		case "reserved":
			res.reserved = append(res.reserved, &Task{ID: *id, Type: *typ, Payload: payload, Attempts: *attempts})
		case "refused":
			if res.refused == nil {
				res.refused = map[int64]bool{}
			}
			res.refused[*id] = true
		default:
			return fmt.Errorf("complete_and_reserve returned a task of unknown kind %q", k)
		}
	}
	return rows.Err()
}
