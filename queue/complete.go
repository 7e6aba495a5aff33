package queue

import (
	"context"
	"sync"
	"time"
)

// completers is how many completion calls a session runs at once. With
// complete_and_take a completion also claims the limited tasks its units
// pass to, so it carries what the fetcher's claims carry for unlimited
// tasks: two calls in flight keep two server processes busy, as claims and
// completions do for unlimited tasks.
const completers = 2

// complete flushes finished tasks in batches: as soon as FlushSize are
// waiting, or FlushInterval after the first finished, with up to completers
// calls in flight, until quit is closed.
func (s *session) complete() {
	slots := make(chan struct{}, completers)
	var inflight sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-s.flushNow:
		case <-timer.C:
		case <-s.quit:
			inflight.Wait()
			for failures := 0; failures < 3; {
				s.mu.Lock()
				n := len(s.done)
				s.mu.Unlock()
				if n == 0 {
					break
				}
				if !s.flush() {
					failures++
					time.Sleep(100 * time.Millisecond)
				}
			}
			return
		}
		for {
			s.mu.Lock()
			n, first, urgent := len(s.done), s.firstDone, s.urgent
			s.mu.Unlock()
			if n == 0 {
				break
			}
			wait := s.w.cfg.FlushInterval - time.Since(first)
			if n < s.w.flushSize() && wait > 0 && !urgent {
				timer.Reset(wait)
				break
			}
			if len(slots) > 0 && !s.doneHolds() {
				// A second call in flight pays only where completions also
				// claim (tasks holding units); unlimited tasks are claimed
				// by the fetcher meanwhile.
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
			ids, ok := s.takeDone()
			if !ok {
				<-slots
				break
			}
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				if !s.flushIDs(ids) {
					// The completion failed: try again shortly.
					time.Sleep(100 * time.Millisecond)
				}
				<-slots
				signal(s.flushNow)
			}()
		}
	}
}

// flush completes the finished tasks in one call. It reports whether there
// was nothing to do or the call succeeded; on failure the tasks stay queued
// for the next flush.
func (s *session) flush() bool {
	ids, ok := s.takeDone()
	if !ok {
		return true
	}
	return s.flushIDs(ids)
}

// takeDone takes up to FlushSize finished tasks to complete in one call; false
// when there are none (or the worker was declared dead: they are dropped).
// At most FlushSize per call: a call's cost grows with its array, and one
// slow call must not make the next one bigger still.
func (s *session) takeDone() ([]int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.done) == 0 || s.dead.Load() {
		s.backlog -= len(s.done)
		s.done = s.done[:0]
		return nil, false
	}
	n := min(len(s.done), s.w.flushSize())
	s.urgent = false
	ids := append(s.spare[:0], s.done[:n]...)
	s.spare = nil
	s.done = append(s.done[:0], s.done[n:]...)
	return ids, true
}

// doneHolds reports whether a finished task waiting to be completed holds
// a slot unit.
func (s *session) doneHolds() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.holding) > 0
}

// takeHolders removes ids from holding and reports whether any was there.
func (s *session) takeHolders(ids []int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.holding) == 0 {
		return false
	}
	found := false
	for _, id := range ids {
		if _, ok := s.holding[id]; ok {
			delete(s.holding, id)
			found = true
		}
	}
	return found
}

// flushIDs completes ids in one call; on failure they go back to done.
func (s *session) flushIDs(ids []int64) bool {
	ctx, cancel := s.call()
	defer cancel()
	start := time.Now()
	accepted, handed, handedOff, err := s.completeCall(ctx, ids)
	s.w.obs.Completed(len(ids), accepted, time.Since(start), err)
	if len(handed) > 0 {
		s.w.obs.HandedOff(len(handed))
		s.w.obs.Received(handed, true)
		s.accept(handed)
	}

	if err != nil && handedOff && outcomeUnknown(err) {
		// Like a claim whose outcome is unknown: tasks may have been handed
		// to this worker unseen. End the session; under a new id the leader
		// recovers whatever the old one holds.
		s.w.log.Error("completing tasks failed after the request was sent; tasks may have been handed over unseen",
			"worker", s.id, "error", err)
		s.lost.Store(true)
		s.cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.w.log.Warn("completing tasks failed; retrying", "worker", s.id, "tasks", len(ids), "error", err)
		if len(s.done) == 0 {
			s.firstDone = time.Now()
		}
		s.done = append(ids, s.done...)
		return false
	}
	if accepted < len(ids) {
		s.w.log.Warn("some completed tasks were no longer this worker's (recovered by the leader)",
			"worker", s.id, "tasks", len(ids), "completed", accepted)
	}
	s.backlog -= len(ids)
	s.spare = ids[:0]
	signal(s.freed)
	signal(s.room)
	return true
}

// completeCall completes ids. When some of them hold slot units and the
// session is not closing, it takes over the waiting tasks those units pass
// to (complete_and_take): they come back claimed for this worker. Else it
// completes only (plain complete): unlimited tasks have no units to pass,
// and a closing session must claim nothing it would hand back.
// takeOver reports whether the call could hand tasks over.
func (s *session) completeCall(ctx context.Context, ids []int64) (accepted int, handed []*Task, takeOver bool, err error) {
	holders := s.takeHolders(ids)
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing || !holders {
		err = s.w.db.QueryRow(ctx, s.w.sql.complete, ids, s.id).Scan(&accepted)
		return accepted, nil, false, err
	}
	rows, err := s.w.db.Query(ctx, s.w.sql.completeAndTake, ids, s.id, s.limitedCap(len(ids)))
	if err != nil {
		return 0, nil, true, err
	}
	defer rows.Close()
	for rows.Next() {
		var id *int64
		var typ *string
		var payload []byte
		var attempts *int
		if err := rows.Scan(&accepted, &id, &typ, &payload, &attempts); err != nil {
			return 0, nil, true, err
		}
		if id != nil {
			handed = append(handed, &Task{ID: *id, Type: *typ, Payload: payload, Attempts: *attempts, holdsUnit: true})
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, true, err
	}
	return accepted, handed, true, nil
}
