package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/migrations"
)

// ConfigChannel is the channel pgseq apply notifies after every apply, with
// the schema name as payload; workers reload their queue's settings then.
// Defined by the schema (migrations.ConfigChannel).
const ConfigChannel = migrations.ConfigChannel

// TasksChannel is the channel the runtime notifies, with the schema name as
// payload, when a completion passes slot units to tasks it leaves open for
// any worker: idle workers claim at once instead of at their next poll.
// Defined by the schema (migrations.TasksChannel).
const TasksChannel = migrations.TasksChannel

// Settings are the queue settings a worker runs with: its queue's, as
// declared and applied, with the worker's own overrides.
type Settings struct {
	// Queue is the queue's name.
	Queue string
	// QueueBatchSize is the queue's declared batch_size.
	QueueBatchSize int
	// BatchSize is the number of tasks asked for per claim: Config.BatchSize
	// when set, else QueueBatchSize.
	BatchSize int
	// WorkerTimeout is the queue's worker_timeout: a worker whose heartbeat
	// is older is declared dead.
	WorkerTimeout time.Duration
	// LeaderLease is the queue's leader_lease.
	LeaderLease time.Duration
	// HeartbeatInterval is Config.HeartbeatInterval when set, else
	// WorkerTimeout/3.
	HeartbeatInterval time.Duration
	// MaintenanceInterval is how often the leader runs maintenance:
	// Config.MaintenanceInterval when set, else LeaderLease/3.
	MaintenanceInterval time.Duration
}

// ErrUnknownQueue means the worker's queue is not declared in the schema.
var ErrUnknownQueue = errors.New("unknown queue")

// loadSettings reads the queue's settings and applies the config's overrides.
func (w *Worker) loadSettings(ctx context.Context) (Settings, error) {
	s := Settings{Queue: w.cfg.Queue}
	var timeoutUS, leaseUS int64
	err := w.db.QueryRow(ctx, w.sql.queueSettings, w.cfg.Queue).Scan(&s.QueueBatchSize, &timeoutUS, &leaseUS)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("reading the settings of queue %q: %w: it is not declared in schema %q (declare it in a queue block and apply)",
			w.cfg.Queue, ErrUnknownQueue, w.schema)
	}
	if err != nil {
		return s, fmt.Errorf("reading the settings of queue %q in schema %q: %w", w.cfg.Queue, w.schema, err)
	}
	s.WorkerTimeout = time.Duration(timeoutUS) * time.Microsecond
	s.LeaderLease = time.Duration(leaseUS) * time.Microsecond
	s.BatchSize = s.QueueBatchSize
	if w.cfg.BatchSize > 0 {
		s.BatchSize = w.cfg.BatchSize
	}
	s.HeartbeatInterval = max(s.WorkerTimeout/3, minInterval)
	if w.cfg.HeartbeatInterval > 0 {
		s.HeartbeatInterval = w.cfg.HeartbeatInterval
	}
	s.MaintenanceInterval = max(s.LeaderLease/3, minInterval)
	if w.cfg.MaintenanceInterval > 0 {
		s.MaintenanceInterval = w.cfg.MaintenanceInterval
	}
	return s, nil
}

// minInterval bounds derived intervals from below.
const minInterval = 100 * time.Millisecond

// reload reads the settings again and switches to them.
func (w *Worker) reload(ctx context.Context) error {
	s, err := w.loadSettings(ctx)
	if err != nil {
		return err
	}
	old := w.settings.Swap(&s)
	if old == nil || *old != s {
		w.log.Info("queue settings loaded", "batch_size", s.BatchSize,
			"worker_timeout", s.WorkerTimeout, "leader_lease", s.LeaderLease)
		w.obs.SettingsLoaded(s)
	}
	return nil
}

// listen keeps a dedicated connection listening on ConfigChannel and
// TasksChannel: it reloads the settings when an apply notifies this schema,
// and wakes an idle fetcher when tasks were opened for any worker, until ctx
// ends.
func (w *Worker) listen(ctx context.Context) {
	delay := time.Second
	for {
		listened, err := w.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened {
			// The connection worked until it was lost: a new failure,
			// retried as soon as the first.
			delay = time.Second
		}
		w.log.Warn("listening for configuration changes failed; retrying", "error", err, "retry_in", delay)
		if !sleep(ctx, delay) {
			return
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// listenOnce listens until the connection fails; listened reports whether
// its LISTEN had succeeded.
func (w *Worker) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, w.cfg.Pool.Config().ConnConfig)
	if err != nil {
		return false, fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // closing a listener
	// The listening session is idle by design: a server's or role's
	// idle_session_timeout (PostgreSQL 14 and later) must not end it.
	if _, err := conn.Exec(ctx, `SELECT set_config('idle_session_timeout', '0', false)
	                             WHERE current_setting('server_version_num')::int >= 140000`); err != nil {
		return false, fmt.Errorf("turning idle_session_timeout off for the listening session: %w", err)
	}
	for _, ch := range []string{ConfigChannel, TasksChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return false, fmt.Errorf("LISTEN %s: %w", ch, err)
		}
	}
	// An apply may have committed before the LISTEN did.
	if err := w.reload(ctx); err != nil {
		w.log.Warn("reloading queue settings", "error", err)
	}
	w.listening.Store(true)
	defer w.listening.Store(false)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, fmt.Errorf("waiting for notifications: %w", err)
		}
		if n.Payload != w.schema {
			continue
		}
		if n.Channel == TasksChannel {
			signal(w.wake)
			continue
		}
		if err := w.reload(ctx); err != nil {
			w.log.Warn("reloading queue settings after an apply", "error", err)
		}
	}
}

// pollSettings reloads the queue's settings every SettingsInterval until
// ctx ends: applies reach the worker even without a notification (a lost
// listening connection, a pooler, PollOnly).
func (w *Worker) pollSettings(ctx context.Context) {
	t := time.NewTicker(w.cfg.SettingsInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := w.reload(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("reading queue settings", "error", err)
		}
	}
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
