package queue

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// elector takes part in leader election for one session of a worker and
// runs the queue's maintenance while the session leads.
type elector struct {
	w  *Worker
	id string // the session's worker id
	// bg is the context of the database calls, which never follow the
	// session's cancellation (see callTimeout).
	bg context.Context
	// leading is whether the session holds the leader lease, as the last
	// election (or maintenance refused as not the leader's) said.
	leading atomic.Bool
}

// run takes part in leader election and runs maintenance while leading,
// until ctx ends.
func (e *elector) run(ctx context.Context) {
	var lastMaintenance time.Time
	for {
		cctx, cancel := callContext(e.bg)
		var elected bool
		err := e.w.db.QueryRow(cctx, e.w.sql.electLeader, e.id).Scan(&elected)
		cancel()
		e.w.noteContact(err)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				e.w.log.Warn("leader election failed", "worker", e.id, "error", err)
			}
		case elected != e.leading.Load():
			e.leading.Store(elected)
			if elected {
				e.w.log.Info("worker is the leader", "worker", e.id)
			} else {
				e.w.log.Info("worker lost the leadership", "worker", e.id)
			}
		}
		st := e.w.Settings()
		if e.leading.Load() && time.Since(lastMaintenance) >= st.MaintenanceInterval &&
			!e.w.lostContact.Load() && time.Since(time.Unix(0, e.w.contactSince.Load())) >= st.WorkerTimeout {
			lastMaintenance = time.Now()
			e.maintain()
		}
		if !sleep(ctx, max(min(st.LeaderLease/3, st.MaintenanceInterval), minInterval)) {
			return
		}
	}
}

// maintain runs the leader's maintenance once.
func (e *elector) maintain() {
	ctx, cancel := callContext(e.bg)
	defer cancel()
	var report []byte
	err := e.w.db.QueryRow(ctx, e.w.sql.runMaintenance, e.id).Scan(&report)
	switch {
	case isCode(err, CodeNotLeader):
		e.leading.Store(false)
		e.w.log.Info("worker lost the leadership", "worker", e.id)
	case err != nil:
		e.w.log.Warn("maintenance failed", "worker", e.id, "error", err)
	default:
		e.w.log.Debug("maintenance", "worker", e.id, "report", string(report))
	}
}

// resign gives the leader lease up, if the session holds it (shutdown).
func (e *elector) resign() {
	if !e.leading.Load() {
		return
	}
	ctx, cancel := callContext(e.bg)
	if _, err := e.w.db.Exec(ctx, e.w.sql.resignLeader, e.id); err != nil {
		e.w.log.Warn("resigning the leadership failed", "worker", e.id, "error", err)
	}
	cancel()
}

// isCode reports whether err is a database error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
