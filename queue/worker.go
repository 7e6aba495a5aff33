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
	"runtime"
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
	// in a batch (default DefaultFlushInterval).
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

// session holds one registration's pipeline: a fetcher claiming batches
// into jobs, PoolSize handler goroutines, a completer flushing finished
// tasks, a heartbeat and a leader loop.
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

	mu      sync.Mutex
	running map[int64]*Task // handlers in progress
	done    []int64         // finished, to complete
	// holding has the ids in done whose tasks hold a slot unit: a
	// completion hands those units over (complete_and_take).
	holding   map[int64]struct{}
	spare     []int64   // the other completion buffer
	firstDone time.Time // when done became non-empty
	// backlog counts finished tasks not completed yet: in done or in a
	// completion call. The fetcher waits while it is over maxBacklog, so
	// slow completions throttle claims instead of piling up tasks.
	backlog  int
	flushNow chan struct{} // signalled on the first and the FlushSize-th finished task
	// handlerTime is the handlers' mean run time (moving average), for
	// limitedCap.
	handlerTime movingAverage
	// urgent asks the completer to complete what is done now (see finish).
	urgent bool
	// closing is set when shutdown begins: from then on tasks handed over
	// by completions go to handBack, released with the unstarted ones.
	closing  bool
	handBack []int64

	leader atomic.Bool

	handlers  sync.WaitGroup
	loops     sync.WaitGroup // heartbeat and leader loops
	completer sync.WaitGroup
	quit      chan struct{} // closed to stop the completer after a final flush
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
		holding:  make(map[int64]struct{}),
		flushNow: make(chan struct{}, 1),
		quit:     make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.hctx, s.cancelHandler = context.WithCancel(s.bg)
	return s
}

func (s *session) start() {
	for range s.w.cfg.PoolSize {
		s.handlers.Go(s.work)
	}
	s.completer.Go(s.complete)
	s.loops.Go(s.heartbeat)
	s.loops.Go(s.lead)
}

// call returns a context for one database call.
func (s *session) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.bg, callTimeout)
}

// fetch claims batches while fewer than a batch of tasks wait for a
// handler and the completion backlog is small, until s.ctx ends. It returns
// false when a claim's outcome is unknown and the session must end.
func (s *session) fetch() (ok bool) {
	w := s.w
	delay := w.cfg.PollInterval
	for s.ctx.Err() == nil {
		batch := w.batchSize()
		for s.queued.Load() >= int64(batch) || s.completionBacklog() >= s.maxBacklog() {
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

func (s *session) completionBacklog() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backlog
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

// work is one handler goroutine: it runs tasks until jobs is closed.
func (s *session) work() {
	for t := range s.jobs {
		if s.queued.Add(-1) < int64(s.w.batchSize()) {
			signal(s.room)
		}
		s.mu.Lock()
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

		s.w.obs.Started(t)
		start := time.Now()
		err := s.run(t)
		took := time.Since(start)
		s.handlerTime.observe(took)
		if err != nil {
			s.fail(t, err, took)
		} else {
			s.finish(t, took)
		}
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
// slowly.
func (s *session) finish(t *Task, took time.Duration) {
	urgent := t.holdsUnit && took > s.w.cfg.FlushInterval
	s.mu.Lock()
	delete(s.running, t.ID)
	if t.abandoned {
		s.mu.Unlock()
		s.w.obs.Handled(t, took, nil, true)
		return
	}
	s.done = append(s.done, t.ID)
	if t.holdsUnit {
		s.holding[t.ID] = struct{}{}
	}
	s.backlog++
	n := len(s.done)
	if n == 1 {
		s.firstDone = time.Now()
	}
	if urgent {
		s.urgent = true
	}
	s.mu.Unlock()
	s.w.obs.Handled(t, took, nil, false)
	if n == 1 || n == s.w.flushSize() || urgent {
		signal(s.flushNow)
	}
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
}

// maxErrorLen bounds the error text stored with a failed task.
const maxErrorLen = 8 << 10

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

// heartbeat beats until s.ctx ends; a heartbeat answered false means the
// worker was declared dead: everything in flight is abandoned.
func (s *session) heartbeat() {
	for {
		if !sleep(s.ctx, s.w.Settings().HeartbeatInterval) {
			return
		}
		ctx, cancel := s.call()
		var alive bool
		err := s.w.db.QueryRow(ctx, s.w.sql.heartbeat, s.id).Scan(&alive)
		cancel()
		s.w.noteContact(err)
		if err != nil {
			if s.ctx.Err() == nil {
				s.w.log.Warn("heartbeat failed", "worker", s.id, "error", err)
			}
			continue
		}
		if !alive {
			s.declaredDead()
			return
		}
	}
}

// declaredDead abandons everything in flight and stops the session.
func (s *session) declaredDead() {
	s.mu.Lock()
	s.dead.Store(true)
	for id, t := range s.running {
		t.abandoned = true
		delete(s.running, id)
	}
	s.backlog -= len(s.done)
	s.done = s.done[:0]
	s.mu.Unlock()
	s.cancelHandler()
	s.cancel()
}

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

// shutdown ends the session after fetch returned: unstarted tasks are
// released, running handlers get the grace period, what is left is
// released, finished tasks are completed and leadership is resigned. A
// dead session abandons everything instead.
func (s *session) shutdown() {
	w := s.w
	s.cancel()
	s.mu.Lock()
	s.closing = true
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
	close(s.quit)
	s.completer.Wait()
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
	if s.leader.Load() {
		ctx, cancel := s.call()
		if _, err := w.db.Exec(ctx, w.sql.resignLeader, s.id); err != nil {
			w.log.Warn("resigning the leadership failed", "worker", s.id, "error", err)
		}
		cancel()
	}
	w.log.Info("worker stopped", "worker", s.id, "released", len(release))
}

// isCode reports whether err is a database error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// stack returns the calling goroutine's stack.
func stack() []byte {
	buf := make([]byte, 16<<10)
	return buf[:runtime.Stack(buf, false)]
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
