package queue

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// fetch claims batches while fewer than a batch of tasks wait for a
// handler and the completion backlog is small, until s.ctx ends. It returns
// false when a claim's outcome is unknown and the session must end.
func (s *session) fetch() (ok bool) {
	w := s.w
	delay := w.cfg.PollInterval
	for s.ctx.Err() == nil {
		batch := w.batchSize()
		for s.queued.Load() >= int64(batch) || s.completer.pending() >= s.maxBacklog() {
			select {
			case <-s.room:
			case <-s.ctx.Done():
				return true
			}
			batch = w.batchSize()
		}
		select {
		case <-s.freed: // the claim sees what was freed so far
		default:
		}
		tasks, err := s.claim(batch)
		if err != nil && outcomeUnknown(err) {
			w.log.Error("claiming tasks failed after the request was sent; the claim may have committed",
				"worker", s.id, "error", err)
			return false
		}
		if err != nil {
			w.log.Warn("claiming tasks failed", "worker", s.id, "error", err, "retry_in", delay)
			if !sleep(s.ctx, delay) {
				return true
			}
			delay = min(2*delay, 5*time.Second)
			continue
		}
		delay = w.cfg.PollInterval
		if len(tasks) == 0 {
			s.trimAllReserved()
			if !s.idle() {
				return true
			}
			continue
		}
		s.queued.Add(int64(len(tasks)))
		for _, t := range tasks {
			s.jobs <- t
		}
	}
	return true
}

// outcomeUnknown reports whether a failed call may have committed: the
// request was sent but no answer from the server said it failed.
//
// An ERROR from the server means the statement, and its transaction of one
// statement, rolled back. A FATAL one (the session terminated: an
// administrator's pg_terminate_backend, a shutdown) does not: it can
// arrive after the statement committed, while its rows were on the way
// (with the simple protocol, the rows of a committed claim come before
// the termination notice).
//
// A failed connect comes first: its FATAL (57P03, the server starting up)
// refused the connection, so nothing was sent.
func outcomeUnknown(err error) bool {
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return false // no connection (server down or restarting): nothing was sent
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Severity == "FATAL" || pgErr.Severity == "PANIC"
	}
	return !pgconn.SafeToRetry(err)
}

// maxBacklog is the completion backlog above which the fetcher stops
// claiming: two completion batches.
func (s *session) maxBacklog() int { return 2 * max(s.w.flushSize(), s.w.batchSize()) }

// idle waits after a claim found nothing: PollInterval, or until a
// completion may have freed slots. It reports whether s.ctx is still live.
func (s *session) idle() bool {
	t := time.NewTimer(s.w.cfg.PollInterval)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
	case <-s.freed:
	case <-s.w.wake:
	}
	return true
}

func (s *session) claim(batch int) ([]*Task, error) {
	ctx, cancel := s.call()
	defer cancel()
	start := time.Now()
	rows, err := s.w.db.Query(ctx, s.w.sql.claim, s.w.cfg.Queue, s.id, batch, s.limitedCap(batch))
	var tasks []*Task
	if err == nil {
		tasks = make([]*Task, 0, batch)
		for rows.Next() {
			t := &Task{}
			var payload []byte
			if err = rows.Scan(&t.ID, &t.Type, &payload, &t.Attempts, &t.holdsUnit); err != nil {
				break
			}
			if payload != nil {
				t.Payload = payload
			}
			tasks = append(tasks, t)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err == nil && claimCalibrationWork != nil {
		claimCalibrationWork(len(tasks))
	}
	s.w.obs.Claimed(batch, len(tasks), time.Since(start), err)
	if err != nil {
		return nil, fmt.Errorf("claiming up to %d tasks: %w", batch, err)
	}
	if len(tasks) > 0 {
		s.w.obs.Received(tasks, false)
	}
	return tasks, nil
}
