package queue

import (
	"context"
	"time"
)

// shutdown ends the session after fetch returned: unstarted tasks are
// released, running handlers get the grace period, what is left is
// released, finished tasks are completed and leadership is resigned. A
// dead session abandons everything instead.
func (s *session) shutdown() {
	w := s.w
	s.cancel()
	s.mu.Lock()
	s.closing = true
	s.completer.stopTaking()
	s.mu.Unlock()
	var release []int64
drain:
	for {
		select {
		case t := <-s.jobs:
			s.queued.Add(-1)
			release = append(release, t.ID)
		default:
			break drain
		}
	}
	close(s.jobs)
	s.mu.Lock()
	running := len(s.running)
	// Reserved successors no task will start in place of now.
	for typ, q := range s.reserved {
		for _, t := range q {
			release = append(release, t.ID)
		}
		delete(s.reserved, typ)
	}
	s.mu.Unlock()
	w.log.Info("worker stopping: no new task starts; queued tasks are handed back",
		"worker", s.id, "queued", len(release), "running", running, "timeout", w.cfg.ShutdownTimeout)

	finished := make(chan struct{})
	go func() { s.handlers.Wait(); close(finished) }()
	grace := time.NewTimer(w.cfg.ShutdownTimeout)
	select {
	case <-finished:
		grace.Stop()
	case <-grace.C:
		// Abandon first, then cancel: a handler returning its context's
		// error must find its task abandoned, not fail it.
		s.mu.Lock()
		n := 0
		for id, t := range s.running {
			t.abandoned = true
			delete(s.running, id)
			release = append(release, id)
			n++
		}
		s.mu.Unlock()
		s.cancelHandler()
		w.log.Warn("handlers did not finish within the shutdown timeout; releasing their tasks",
			"worker", s.id, "tasks", n, "timeout", w.cfg.ShutdownTimeout)
	}
	s.cancelHandler()
	s.completer.stop()
	s.loops.Wait()
	release = append(release, s.handBack...)

	if s.dead.Load() {
		return
	}
	if len(release) > 0 {
		ctx, cancel := s.call()
		start := time.Now()
		var n int
		err := w.db.QueryRow(ctx, w.sql.release, release, s.id).Scan(&n)
		cancel()
		w.obs.Released(len(release), time.Since(start), err)
		if err != nil {
			w.log.Error("releasing unfinished tasks failed; they return to the queue when the worker is declared dead",
				"worker", s.id, "tasks", len(release), "error", err)
		}
	}
	s.elector.resign()
	w.log.Info("worker stopped", "worker", s.id, "released", len(release))
}

// unregister removes a stopped worker's row (unregister_worker), so that
// it is not shown dead once its heartbeat is old; anything it still ran
// goes back to the queue. A worker whose session restarts under a new id
// keeps the old row: the leader recovers what a claim of unknown outcome
// may have left with it.
func (w *Worker) unregister(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var back int
	if err := w.db.QueryRow(ctx, w.sql.unregisterWorker, id).Scan(&back); err != nil {
		w.log.Warn("unregistering the worker failed; it shows as dead once its heartbeat is older than worker_timeout",
			"worker", id, "error", err)
		return
	}
	if back > 0 {
		w.log.Warn("unregistering the worker put back tasks it still held", "worker", id, "tasks", back)
	}
}
