package queue

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// lead takes part in leader election and runs maintenance while leading,
// until s.ctx ends.
func (s *session) lead() {
	var lastMaintenance time.Time
	for {
		ctx, cancel := s.call()
		var elected bool
		err := s.w.db.QueryRow(ctx, s.w.sql.electLeader, s.id).Scan(&elected)
		cancel()
		s.w.noteContact(err)
		switch {
		case err != nil:
			if s.ctx.Err() == nil {
				s.w.log.Warn("leader election failed", "worker", s.id, "error", err)
			}
		case elected != s.leader.Load():
			s.leader.Store(elected)
			if elected {
				s.w.log.Info("worker is the leader", "worker", s.id)
			} else {
				s.w.log.Info("worker lost the leadership", "worker", s.id)
			}
		}
		st := s.w.Settings()
		if s.leader.Load() && time.Since(lastMaintenance) >= st.MaintenanceInterval &&
			!s.w.lostContact.Load() && time.Since(time.Unix(0, s.w.contactSince.Load())) >= st.WorkerTimeout {
			lastMaintenance = time.Now()
			s.maintain()
		}
		if !sleep(s.ctx, max(min(st.LeaderLease/3, st.MaintenanceInterval), minInterval)) {
			return
		}
	}
}

// maintain runs the leader's maintenance once.
func (s *session) maintain() {
	ctx, cancel := s.call()
	defer cancel()
	var report []byte
	err := s.w.db.QueryRow(ctx, s.w.sql.runMaintenance, s.id).Scan(&report)
	switch {
	case isCode(err, CodeNotLeader):
		s.leader.Store(false)
		s.w.log.Info("worker lost the leadership", "worker", s.id)
	case err != nil:
		s.w.log.Warn("maintenance failed", "worker", s.id, "error", err)
	default:
		s.w.log.Debug("maintenance", "worker", s.id, "report", string(report))
	}
}

// isCode reports whether err is a database error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
