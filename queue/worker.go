package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/migrations"
)

// Defaults of the Config fields left zero.
const (
	DefaultPoolSize        = 10
	DefaultPollInterval    = 250 * time.Millisecond
	DefaultFlushInterval   = 2 * time.Millisecond
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultSettingsInterval: how often a worker reads its queue's settings
	// without a notification (Config.SettingsInterval).
	DefaultSettingsInterval = 10 * time.Second
	DefaultQueue            = "default"
)

// callTimeout bounds every database call of the worker loop. The calls do
// not follow Run's context: a claim or completion cut off after its commit
// would leave tasks nobody knows about until their worker is declared dead.
const callTimeout = 30 * time.Second

// callContext returns the context of one database call of the worker loop:
// bg's values, callTimeout, and none of Run's cancellation (bg is
// context.WithoutCancel of Run's context).
func callContext(bg context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(bg, callTimeout)
}

// Config configures a Worker. Only Pool is required.
type Config struct {
	// Pool is the database. The worker uses up to about four of its
	// connections at once (claim, complete, fail, heartbeat/leader), and
	// opens one more of its own, with the pool's settings, to listen for
	// configuration changes.
	Pool *pgxpool.Pool
	// Schema is the pgseq schema ("" means pgseq's default).
	Schema string
	// Queue is the queue to work (default "default"). It must be declared.
	Queue string
	// WorkerID names the worker in the workers table; default
	// <hostname>-<pid>-<random>. A worker declared dead, or whose claim
	// failed without telling whether it committed, carries on under a new
	// id: WorkerID with a random suffix.
	WorkerID string
	// PoolSize is how many handlers run at once (default DefaultPoolSize).
	PoolSize int
	// BatchSize is how many tasks one claim asks for; 0 means the queue's
	// batch_size, reloaded when an apply changes it. The worker keeps up to
	// two batches claimed ahead of its handlers.
	BatchSize int
	// Handlers maps task types to their handlers; more can be added with
	// Worker.Handle. A task with no handler fails for good.
	Handlers map[string]Handler
	// HeartbeatInterval is the time between heartbeats; 0 means the queue's
	// worker_timeout/3.
	HeartbeatInterval time.Duration
	// MaintenanceInterval is how often the leader runs maintenance
	// (recovering dead workers' tasks, deleting drained slot groups,
	// purging finished tasks); 0 means the queue's leader_lease/3.
	MaintenanceInterval time.Duration
	// PollInterval is how long the worker waits after a claim found
	// nothing (default DefaultPollInterval).
	PollInterval time.Duration
	// SettingsInterval is how often the worker reads its queue's settings
	// (batch size, timeouts) whether or not an apply's notification came
	// (default DefaultSettingsInterval): the notification only makes it
	// sooner, and a worker that cannot LISTEN still follows every apply
	// within this interval.
	SettingsInterval time.Duration
	// PollOnly keeps the worker from opening its listening connection
	// (LISTEN): it follows applies every SettingsInterval and looks for
	// tasks every PollInterval. For a pool behind a pooler in transaction
	// mode (PgBouncer's pool_mode = transaction), where LISTEN does not
	// work.
	PollOnly bool
	// FlushInterval is the longest a finished task waits to be completed
	// in a batch (default DefaultFlushInterval). A session that runs and
	// queues no other task completes its finished ones at once: nothing
	// would join them.
	FlushInterval time.Duration
	// FlushSize completes finished tasks as soon as this many are waiting;
	// 0 means the batch size.
	FlushSize int
	// ShutdownTimeout is how long running handlers may take to finish
	// after Run's context is cancelled before their tasks are released
	// (default DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// Observer receives metrics events; nil means none.
	Observer Observer
	// Logger receives the worker's log; nil means none.
	Logger *slog.Logger
	// Version is reported in the workers table; optional.
	Version string
}

// Worker runs handlers for the tasks of one queue. Create it with
// NewWorker; Run it once.
type Worker struct {
	cfg    Config
	schema string
	sql    *statements
	// db runs the worker's calls: cfg.Pool, or readCommitted when the
	// pool's sessions default to another isolation level (set by Run).
	db  querier
	obs Observer
	log *slog.Logger

	handlers  atomic.Pointer[map[string]Handler]
	handleMu  sync.Mutex // serialises Handle's copy-on-write
	settings  atomic.Pointer[Settings]
	id        atomic.Pointer[string]
	running   atomic.Bool
	listening atomic.Bool
	// wake is signalled when the runtime notifies TasksChannel.
	wake chan struct{}
	// lostContact is set while the database is unreachable; contactSince
	// is when it last became reachable again (UnixNano; 0: never lost).
	// See noteContact.
	lostContact  atomic.Bool
	contactSince atomic.Int64
}

// noteContact records whether a call (err is its error) reached the
// database. While the database is unreachable nobody can heartbeat, so the
// leader runs no maintenance until worker_timeout after it is reachable
// again: every live worker has heartbeated by then, and none is declared
// dead for the outage.
func (w *Worker) noteContact(err error) {
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	if err != nil && (errors.As(err, &connErr) || !errors.As(err, &pgErr)) {
		w.lostContact.Store(true)
		w.contactSince.Store(time.Now().UnixNano())
	} else if w.lostContact.CompareAndSwap(true, false) {
		w.contactSince.Store(time.Now().UnixNano())
	}
}

// NewWorker checks cfg, fills in its defaults and returns a worker.
func NewWorker(cfg Config) (*Worker, error) {
	if cfg.Pool == nil {
		return nil, errors.New("queue.NewWorker: Config.Pool is required")
	}
	if cfg.Schema == "" {
		cfg.Schema = migrations.DefaultSchema
	}
	if cfg.Queue == "" {
		cfg.Queue = DefaultQueue
	}
	if cfg.PoolSize < 0 || cfg.BatchSize < 0 || cfg.FlushSize < 0 {
		return nil, errors.New("queue.NewWorker: PoolSize, BatchSize and FlushSize must not be negative")
	}
	if cfg.PoolSize == 0 {
		cfg.PoolSize = DefaultPoolSize
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.SettingsInterval <= 0 {
		cfg.SettingsInterval = DefaultSettingsInterval
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.WorkerID == "" {
		cfg.WorkerID = defaultWorkerID()
	}
	w := &Worker{cfg: cfg, schema: cfg.Schema, sql: newStatements(cfg.Schema), db: cfg.Pool, obs: cfg.Observer, log: cfg.Logger,
		wake: make(chan struct{}, 1)}
	if w.obs == nil {
		w.obs = NopObserver{}
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.log = w.log.With("queue", cfg.Queue)
	h := maps.Clone(cfg.Handlers)
	if h == nil {
		h = map[string]Handler{}
	}
	w.handlers.Store(&h)
	w.id.Store(&cfg.WorkerID)
	return w, nil
}

// Handle sets the handler of a task type. It may be called while the
// worker runs.
func (w *Worker) Handle(taskType string, h Handler) {
	w.handleMu.Lock()
	defer w.handleMu.Unlock()
	m := maps.Clone(*w.handlers.Load())
	m[taskType] = h
	w.handlers.Store(&m)
}

// ID returns the worker's current id (it changes when a worker declared
// dead carries on).
func (w *Worker) ID() string { return *w.id.Load() }

// Settings returns the queue settings the worker runs with; the zero value
// before Run has read them.
func (w *Worker) Settings() Settings {
	if s := w.settings.Load(); s != nil {
		return *s
	}
	return Settings{}
}

// Listening reports whether the worker currently listens for configuration
// changes.
func (w *Worker) Listening() bool { return w.listening.Load() }

func (w *Worker) batchSize() int { return w.settings.Load().BatchSize }

func (w *Worker) flushSize() int {
	if w.cfg.FlushSize > 0 {
		return w.cfg.FlushSize
	}
	return w.batchSize()
}

// Run works the queue until ctx is cancelled, then shuts down gracefully
// (see the package documentation) and returns nil. It returns an error
// when the worker cannot start: the queue is not declared, the schema has
// no runtime, the database is unreachable. Run may be called only once.
func (w *Worker) Run(ctx context.Context) error {
	if !w.running.CompareAndSwap(false, true) {
		return errors.New("queue: Worker.Run called twice")
	}
	if why := schemaMismatch(ctx, w.cfg.Pool, w.schema); why != "" {
		w.log.Warn("the worker's SQL is written for another schema version: " + why)
	}
	if level := defaultIsolation(ctx, w.cfg.Pool); level != "" && level != "read committed" {
		w.db = readCommitted{pool: w.cfg.Pool}
		w.log.Warn(isolationNote(level))
	}
	if err := w.reload(ctx); err != nil {
		return missingFunction(ctx, w.cfg.Pool, w.schema, err)
	}
	var wg sync.WaitGroup
	lctx, stopListening := context.WithCancel(ctx)
	if !w.cfg.PollOnly {
		wg.Go(func() { w.listen(lctx) })
	}
	wg.Go(func() { w.pollSettings(lctx) })
	defer wg.Wait()
	defer stopListening()

	first := true
	for {
		id := w.ID()
		end, err := w.session(ctx, id, first)
		first = false
		if err != nil || end == sessionStopped || ctx.Err() != nil {
			return err
		}
		next := w.cfg.WorkerID + "-" + randomHex(4)
		if end == sessionDead {
			w.log.Warn("worker was declared dead: its tasks were abandoned; carrying on under a new id",
				"worker", id, "new_worker", next)
		} else {
			w.log.Warn("a claim's outcome is unknown: carrying on under a new id, so that the leader recovers "+
				"whatever the old id may hold once its heartbeat is older than the queue's worker_timeout",
				"worker", id, "new_worker", next)
		}
		w.id.Store(&next)
	}
}

// sessionEnd says why a session ended.
type sessionEnd int

const (
	// sessionStopped: Run's context was cancelled.
	sessionStopped sessionEnd = iota
	// sessionDead: the worker was declared dead; everything in flight was
	// abandoned.
	sessionDead
	// sessionRestart: a claim failed in a way that leaves unknown whether
	// it committed. The session shut down gracefully; tasks the claim may
	// have taken are the old id's, recovered by the leader once the old id
	// stops heartbeating.
	sessionRestart
)

// session registers the worker under id and runs until ctx ends or the
// session must end. The first session's registration error is returned;
// later sessions retry registering until ctx ends.
func (w *Worker) session(ctx context.Context, id string, first bool) (sessionEnd, error) {
	host, _ := os.Hostname()
	var version *string
	if w.cfg.Version != "" {
		version = &w.cfg.Version
	}
	delay := w.cfg.PollInterval
	for {
		_, err := w.db.Exec(ctx, w.sql.registerWorker, id, host, w.cfg.PoolSize, version)
		w.noteContact(err)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			// Stopped while registering: the registration may have
			// committed with its answer still on the way, and a row left
			// behind would show as a dead worker.
			if outcomeUnknown(err) {
				w.unregister(id)
			}
			return sessionStopped, nil
		}
		if first {
			return sessionStopped, fmt.Errorf("registering worker %s: %w", id, missingFunction(ctx, w.cfg.Pool, w.schema, err))
		}
		w.log.Warn("registering the worker failed; retrying", "worker", id, "error", err, "retry_in", delay)
		if !sleep(ctx, delay) {
			return sessionStopped, nil
		}
		delay = min(2*delay, 5*time.Second)
	}
	w.log.Info("worker started", "worker", id, "pool_size", w.cfg.PoolSize, "batch_size", w.batchSize())

	s := newSession(ctx, w, id)
	s.start()
	restart := !s.fetch()
	s.shutdown()
	restart = restart || s.lost.Load()
	switch {
	case s.dead.Load():
		return sessionDead, nil
	case restart:
		return sessionRestart, nil
	}
	w.unregister(id)
	return sessionStopped, nil
}

func defaultWorkerID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "worker"
	}
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), randomHex(4))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
