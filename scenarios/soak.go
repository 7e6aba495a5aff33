package scenarios

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/queue"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// The soak workload's timing rules.
const (
	// soakSamples is how many samples a soak run takes: the interval is
	// duration/soakSamples, at least soakMinInterval.
	soakSamples     = 30
	soakMinInterval = time.Second
	// soakMaxWarmup caps the warm-up, one interval by default.
	soakMaxWarmup = 30 * time.Second
	// soakLongRun is the duration from which the first and last windows are
	// soakLongWindow long instead of a tenth of the run.
	soakLongRun    = 20 * time.Minute
	soakLongWindow = 10 * time.Minute
	// soakTick is how often the producer enqueues what is due.
	soakTick = 50 * time.Millisecond
	// soakMaxBatch bounds one enqueue_batch call of the producer (when it
	// falls behind, it catches up in batches of this size).
	soakMaxBatch = 2000
	// soakStallTimeout fails a run that completes nothing for this long
	// while tasks wait.
	soakStallTimeout = 2 * time.Minute
)

// soakTables are the tables a soak samples (report.SoakSample.Tasks, .Slots).
var soakTables = []string{"tasks", "concurrency_slots"}

//go:embed sql/soak_*.sql
var soakSQL embed.FS

// soakQuery returns the embedded statement sql/soak_<name>.sql.
func soakQuery(name string) string {
	b, err := soakSQL.ReadFile("sql/soak_" + name + ".sql")
	if err != nil {
		panic("scenarios: no embedded statement " + name) // a build mistake, not a run-time condition
	}
	return string(b)
}

// SoakOptions configure RunSoak.
type SoakOptions struct {
	// Pool is the database: the run's schema is created in it and dropped
	// at the end. The workers get a pool of their own with the same
	// connection settings, the held snapshot (Scenario.Soak.HoldSnapshot) a
	// connection of its own.
	Pool *pgxpool.Pool
	// Scenario is the soak scenario: its Config (the first queue is
	// worked), HandlerDelay, Soak spec, and the labels copied into the
	// result.
	Scenario scenariofile.Scenario
	// Size is the size to run at (scenariofile.EffectiveSize): Duration,
	// Rate, Workers, PoolSize, and BatchSize for generated types.
	Size scenariofile.Size
	// SchemaPrefix names the run's schema, <prefix>_soak_<6 random hex
	// digits> (default "pgseq_bench").
	SchemaPrefix string
	// Interval is the time between samples (default Size.Duration/30, at
	// least 1s).
	Interval time.Duration
	// Warmup is how long the producer and workers run before the measured
	// run starts (default one Interval, at most 30s; negative: none).
	Warmup time.Duration
	// Progress, when set, is told when the warm-up starts and about every
	// sample, from one goroutine.
	Progress func(SoakProgress)
}

// SoakProgress reports a soak run's progress.
type SoakProgress struct {
	Scenario string
	// Warmup is true while the run warms up (Elapsed counts from the
	// warm-up's start then).
	Warmup bool
	// Elapsed of Duration of the measured run.
	Elapsed, Duration time.Duration
	// Sample is the latest sample; nil during the warm-up.
	Sample *report.SoakSample
}

// SoakInterval is the time between a soak's samples for a duration:
// duration/30, at least a second.
func SoakInterval(duration time.Duration) time.Duration {
	return max(duration/soakSamples, soakMinInterval)
}

// SoakWindow is the length of the first and last windows of a soak run:
// a tenth of the run, or 10 minutes from 20 minutes on.
func SoakWindow(duration time.Duration) time.Duration {
	if duration >= soakLongRun {
		return soakLongWindow
	}
	return duration / 10
}

// RunSoak runs one soak scenario: it applies the configuration to a fresh
// schema (and the storage parameters), takes the held snapshot if asked,
// starts the workers and the producer, warms up, samples every interval
// for the duration, stops everything and drops the schema. It returns the
// scenario's metrics with the series (report.ScenarioResult.Soak).
func RunSoak(ctx context.Context, opts SoakOptions) (res *report.ScenarioResult, err error) {
	s, err := newSoaker(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		_, dropErr := opts.Pool.Exec(context.WithoutCancel(ctx), "DROP SCHEMA IF EXISTS "+pgx.Identifier{s.schema}.Sanitize()+" CASCADE")
		if dropErr != nil && err == nil {
			res, err = nil, fmt.Errorf("dropping schema %s: %w", s.schema, dropErr)
		}
	}()
	if err := s.setup(ctx); err != nil {
		return nil, err
	}
	var holder *snapshotHolder
	if opts.Scenario.Soak.HoldSnapshot {
		if holder, err = holdSnapshot(ctx, opts.Pool); err != nil {
			return nil, err
		}
		// Deferred after the DROP SCHEMA, so it runs before it: the
		// snapshot is released, then the schema goes.
		defer holder.close(context.WithoutCancel(ctx))
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	if holder != nil {
		if err := holder.check(ctx); err != nil {
			return nil, err
		}
	}
	return s.result(), nil
}

// soaker runs one soak scenario.
type soaker struct {
	opts     SoakOptions
	size     scenariofile.Size
	schema   string
	queue    catalog.Queue
	types    []catalog.TaskType
	interval time.Duration
	warmup   time.Duration
	window   time.Duration
	obs      *soakObserver
	rec      report.SoakRun
	// first and last are the claim round trips sent in the first and last
	// windows.
	first, last []time.Duration
}

func newSoaker(opts SoakOptions) (*soaker, error) {
	if opts.Pool == nil {
		return nil, errors.New("scenarios: SoakOptions.Pool is required")
	}
	cfg := opts.Scenario.Config
	if len(cfg.Queues) == 0 || len(cfg.TaskTypes) == 0 {
		return nil, fmt.Errorf("soak scenario %q: needs a queue and a task type", opts.Scenario.Name)
	}
	size := opts.Size
	if size.Duration <= 0 || size.Rate <= 0 || size.Workers <= 0 || size.PoolSize <= 0 {
		return nil, fmt.Errorf("soak scenario %q: duration, rate, workers and pool_size must be positive, got %+v", opts.Scenario.Name, size)
	}
	if opts.SchemaPrefix == "" {
		opts.SchemaPrefix = "pgseq_bench"
	}
	q := cfg.Queues[0]
	if size.BatchSize > 0 {
		q.BatchSize = size.BatchSize
	}
	size.BatchSize = q.BatchSize
	var types []catalog.TaskType
	for _, t := range cfg.TaskTypes {
		if t.Queue == q.Name {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("soak scenario %q: queue %q has no task type", opts.Scenario.Name, q.Name)
	}
	s := &soaker{
		opts: opts, size: size, queue: q, types: types,
		schema:   fmt.Sprintf("%s_soak_%s", opts.SchemaPrefix, randomHex(3)),
		interval: opts.Interval,
		warmup:   opts.Warmup,
		window:   SoakWindow(size.Duration),
		obs:      &soakObserver{},
	}
	if s.interval <= 0 {
		s.interval = SoakInterval(size.Duration)
	}
	if s.warmup == 0 {
		s.warmup = min(s.interval, soakMaxWarmup)
	}
	s.warmup = max(s.warmup, 0)
	lease := time.Duration(q.LeaderLease)
	s.rec = report.SoakRun{
		Seconds: size.Duration.Seconds(), WarmupSeconds: s.warmup.Seconds(), IntervalSeconds: s.interval.Seconds(),
		WindowSeconds: s.window.Seconds(), Rate: size.Rate, Queue: q.Name,
		RetentionCompletedSeconds:  time.Duration(q.Retention.Completed).Seconds(),
		LeaderLeaseSeconds:         lease.Seconds(),
		MaintenanceIntervalSeconds: max(lease/3, 100*time.Millisecond).Seconds(),
		TaskTypes:                  len(types), HoldSnapshot: opts.Scenario.Soak.HoldSnapshot,
		Samples: []report.SoakSample{},
	}
	for _, t := range types {
		if t.Concurrency > 0 {
			s.rec.Limited++
		}
	}
	return s, nil
}

// setup creates the schema with the configuration (the queue's batch size
// as the size says) and sets the storage parameters.
func (s *soaker) setup(ctx context.Context) error {
	cfg := s.opts.Scenario.Config
	cfg.Queues = append([]catalog.Queue(nil), cfg.Queues...)
	cfg.Queues[0] = s.queue
	if err := applyConfig(ctx, s.opts.Pool, s.schema, cfg); err != nil {
		return err
	}
	for _, st := range s.opts.Scenario.Soak.Storage {
		params := make([]string, len(st.Params))
		for i, p := range st.Params {
			// Names come from storageParams and values are rendered
			// numbers or booleans (file.go): nothing here is user text.
			params[i] = p.Name + " = " + p.Value
		}
		set := "SET (" + strings.Join(params, ", ") + ")"
		if _, err := s.opts.Pool.Exec(ctx, "ALTER TABLE "+pgx.Identifier{s.schema, st.Table}.Sanitize()+" "+set); err != nil {
			return fmt.Errorf("setting storage parameters of %s: %w", st.Table, err)
		}
		s.rec.Storage = append(s.rec.Storage, "ALTER TABLE "+st.Table+" "+set)
	}
	return nil
}

// run runs the producer and the workers through the warm-up and the
// measured run, sampling.
func (s *soaker) run(ctx context.Context) error {
	cfg := s.opts.Pool.Config()
	cfg.MaxConns = int32(s.size.Workers*4 + 2)
	cfg.MinConns = 0
	workerPool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("opening the workers' pool: %w", err)
	}
	defer workerPool.Close()

	handlers := sleepHandlers(s.types, s.opts.Scenario.HandlerDelay)
	workers := make([]*queue.Worker, s.size.Workers)
	for i := range workers {
		w, err := queue.NewWorker(queue.Config{
			Pool: workerPool, Schema: s.schema, Queue: s.queue.Name,
			WorkerID: fmt.Sprintf("soak-%s-%d", s.opts.Scenario.Name, i+1),
			PoolSize: s.size.PoolSize, Handlers: handlers, Observer: s.obs, Version: "pgseq bench",
		})
		if err != nil {
			return err
		}
		workers[i] = w
	}

	// The workers and the producer run until the sampler is done or one of
	// them fails; the first error ends the run.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop()
	}
	for _, w := range workers {
		wg.Go(func() {
			err := w.Run(runCtx)
			switch {
			case err != nil:
				fail(fmt.Errorf("a worker stopped: %w", err))
			case runCtx.Err() == nil:
				fail(errors.New("a worker stopped before the end of the run"))
			}
		})
	}
	wg.Go(func() {
		if err := s.produce(runCtx); err != nil {
			fail(err)
		}
	})
	if err := s.sample(runCtx); err != nil && runCtx.Err() == nil {
		fail(err)
	}
	stop()
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return firstErr
}

// produce enqueues Rate tasks per second, what is due every soakTick, the
// task types in turn, until ctx ends.
func (s *soaker) produce(ctx context.Context) error {
	client := queue.NewClient(s.opts.Pool, s.schema)
	tick := time.NewTicker(soakTick)
	defer tick.Stop()
	start := time.Now()
	var sent int64
	batch := make([]queue.NewTask, 0, soakMaxBatch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		due := int64(float64(s.size.Rate) * time.Since(start).Seconds())
		n := min(due-sent, soakMaxBatch)
		if n <= 0 {
			continue
		}
		batch = batch[:0]
		for i := range n {
			seq := sent + i
			batch = append(batch, queue.NewTask{
				Type:    s.types[seq%int64(len(s.types))].Name,
				Payload: []byte(`{"seq":` + strconv.FormatInt(seq, 10) + `}`),
			})
		}
		began := time.Now()
		if _, err := client.EnqueueBatch(ctx, batch); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("enqueueing: %w", err)
		}
		s.obs.enqueued(int(n), time.Since(began))
		sent += n
	}
}

// sample waits out the warm-up, then samples every interval until the
// duration is over.
func (s *soaker) sample(ctx context.Context) error {
	progress := func(p SoakProgress) {
		if s.opts.Progress != nil {
			p.Scenario, p.Duration = s.opts.Scenario.Name, s.size.Duration
			s.opts.Progress(p)
		}
	}
	progress(SoakProgress{Warmup: true})
	if !sleepCtx(ctx, s.warmup) {
		return ctx.Err()
	}
	base, err := s.tables(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	counts := s.obs.begin(start, s.window, s.size.Duration-s.window)
	lastDone, lastDoneAt := counts.completed, start
	n := int((s.size.Duration + s.interval - 1) / s.interval)
	for k := 1; k <= n; k++ {
		at := min(time.Duration(k)*s.interval, s.size.Duration)
		if !sleepCtx(ctx, time.Until(start.Add(at))) {
			return ctx.Err()
		}
		w := s.obs.window(k == n)
		smp := report.SoakSample{
			Seconds: at.Seconds(), Claims: len(w.claims),
			Enqueued: w.enqueued - counts.enqueued, Completed: w.completed - counts.completed,
			Backlog: w.enqueued - w.completed,
		}
		elapsed := at - time.Duration(k-1)*s.interval
		smp.CompletedPerSec = float64(smp.Completed) / elapsed.Seconds()
		if len(w.claims) > 0 {
			l := stats.NewLatency(w.claims)
			smp.ClaimP50, smp.ClaimP99 = l.P50/1e6, l.P99/1e6
		}
		if len(w.enqueues) > 0 {
			smp.EnqueueP99 = stats.NewLatency(w.enqueues).P99 / 1e6
		}
		tables, err := s.tables(ctx)
		if err != nil {
			return err
		}
		smp.Tasks, smp.Slots = tables["tasks"], tables["concurrency_slots"]
		if err := s.opts.Pool.QueryRow(ctx, soakQuery("horizon")).Scan(&smp.XminAge, &smp.OldestXactSeconds); err != nil {
			return fmt.Errorf("reading the oldest snapshot: %w", err)
		}
		s.rec.Samples = append(s.rec.Samples, smp)
		counts = w.soakCounts
		progress(SoakProgress{Elapsed: at, Sample: &s.rec.Samples[len(s.rec.Samples)-1]})

		if w.completed != lastDone || smp.Backlog <= 0 {
			lastDone, lastDoneAt = w.completed, time.Now()
		} else if time.Since(lastDoneAt) > soakStallTimeout {
			return fmt.Errorf("stalled: no task completed in %s while %s waited", soakStallTimeout, textfmt.Plural(int(smp.Backlog), "task"))
		}
	}
	s.first, s.last = s.obs.windows()
	total := s.obs.totals()
	s.rec.Enqueued = total.enqueued - s.obs.startCounts.enqueued
	s.rec.Completed = total.completed - s.obs.startCounts.completed
	s.rec.Failed = s.obs.failed.Load()
	if len(s.rec.Samples) > 0 {
		s.rec.Purged = s.rec.Samples[len(s.rec.Samples)-1].Tasks.Deletes - base["tasks"].Deletes
	}
	return nil
}

// tables samples the soak's tables.
func (s *soaker) tables(ctx context.Context) (map[string]report.SoakTable, error) {
	rows, err := s.opts.Pool.Query(ctx, soakQuery("tables"), s.schema, soakTables)
	if err != nil {
		return nil, fmt.Errorf("sampling the tables: %w", err)
	}
	out := map[string]report.SoakTable{}
	var name string
	var t report.SoakTable
	_, err = pgx.ForEachRow(rows, []any{&name, &t.Live, &t.Dead, &t.Bytes, &t.Vacuums, &t.Autovacuums, &t.Autoanalyzes,
		&t.Updates, &t.HotUpdates, &t.Deletes}, func() error {
		out[name] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sampling the tables: %w", err)
	}
	return out, nil
}

// result turns the run into the scenario's result.
func (s *soaker) result() *report.ScenarioResult {
	sc := s.opts.Scenario
	r := &report.ScenarioResult{
		Name: sc.Name, Description: sc.Description, Workload: sc.Workload, File: sc.DeclRange.Filename,
		Size: s.size, Soak: &s.rec,
	}
	one := func(name string, v float64, n int) report.MetricResult {
		m := report.NewMetricResult(scenariofile.WorkloadSoak, name)
		m.Samples, m.Value, m.N = []float64{v}, v, n
		return m
	}
	run := s.rec
	r.Metrics = append(r.Metrics, one("throughput", float64(run.Completed)/run.Seconds, 1))
	for _, pct := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		prefix := "claim_" + pct.name
		first := report.LatencyMetric(scenariofile.WorkloadSoak, prefix+"_first", pct.q, [][]time.Duration{s.first})
		last := report.LatencyMetric(scenariofile.WorkloadSoak, prefix+"_last", pct.q, [][]time.Duration{s.last})
		r.Metrics = append(r.Metrics, first, last)
		if first.N > 0 && last.N > 0 && first.Value > 0 {
			r.Metrics = append(r.Metrics, one(prefix+"_growth", last.Value/first.Value, min(first.N, last.N)))
		}
	}
	if len(run.Samples) > 0 {
		var dead int64
		for _, smp := range run.Samples {
			dead = max(dead, smp.Tasks.Dead+smp.Slots.Dead)
		}
		end := run.Samples[len(run.Samples)-1]
		r.Metrics = append(r.Metrics,
			one("dead_tuples_max", float64(dead), len(run.Samples)),
			one("table_size_last", float64(end.Tasks.Bytes+end.Slots.Bytes), 1))
	}
	r.Metrics = append(r.Metrics, one("tasks_purged", float64(run.Purged), 1))
	return r
}

// soakCounts are running totals of the producer and the workers.
type soakCounts struct {
	enqueued, completed int64
}

// soakWindow is what the observer saw in one sample interval, with the
// running totals at its end.
type soakWindow struct {
	soakCounts
	claims, enqueues []time.Duration
}

// soakObserver records the workers' claim round trips per sample interval
// and in the first and last windows, and counts completions. It serves
// every worker of the run.
type soakObserver struct {
	queue.NopObserver
	completedN atomic.Int64
	enqueuedN  atomic.Int64
	failed     atomic.Int64

	mu sync.Mutex
	// measuring is set from begin to the last window.
	measuring bool
	start     time.Time
	// firstEnd and lastStart bound the first and last windows, from start.
	firstEnd, lastStart time.Duration
	claims, enqueues    []time.Duration
	first, last         []time.Duration
	startCounts         soakCounts
}

// begin starts measuring at start and returns the totals then.
func (o *soakObserver) begin(start time.Time, firstEnd, lastStart time.Duration) soakCounts {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.measuring, o.start, o.firstEnd, o.lastStart = true, start, firstEnd, lastStart
	o.claims, o.enqueues = nil, nil
	o.startCounts = o.totals()
	return o.startCounts
}

// window returns the interval's round trips and the totals, and starts the
// next interval; end stops measuring.
func (o *soakObserver) window(end bool) soakWindow {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := soakWindow{soakCounts: o.totals(), claims: o.claims, enqueues: o.enqueues}
	o.claims, o.enqueues = nil, nil
	if end {
		o.measuring = false
	}
	return w
}

// windows returns the claim round trips of the first and last windows.
func (o *soakObserver) windows() (first, last []time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first, o.last
}

func (o *soakObserver) totals() soakCounts {
	return soakCounts{enqueued: o.enqueuedN.Load(), completed: o.completedN.Load()}
}

// Claimed implements queue.Observer.
func (o *soakObserver) Claimed(_, _ int, latency time.Duration, err error) {
	if err != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.measuring {
		return
	}
	o.claims = append(o.claims, latency)
	// A claim belongs to the window it was sent in: a worker polling an
	// empty queue may send one just before the first window ends and hear
	// back after it (the window was empty on a loaded 2-core CI machine).
	at := time.Since(o.start) - latency
	if at < o.firstEnd {
		o.first = append(o.first, latency)
	}
	if at >= o.lastStart {
		o.last = append(o.last, latency)
	}
}

// Completed implements queue.Observer.
func (o *soakObserver) Completed(_, accepted int, _ time.Duration, err error) {
	if err == nil {
		o.completedN.Add(int64(accepted))
	}
}

// Failed implements queue.Observer.
func (o *soakObserver) Failed(*queue.Task, string, error, time.Duration) {
	o.failed.Add(1)
}

// enqueued records one enqueue_batch of n tasks by the producer.
func (o *soakObserver) enqueued(n int, latency time.Duration) {
	o.enqueuedN.Add(int64(n))
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.measuring {
		o.enqueues = append(o.enqueues, latency)
	}
}

// snapshotHolder is a session holding a REPEATABLE READ snapshot.
type snapshotHolder struct {
	conn *pgx.Conn
	tx   pgx.Tx
}

// holdSnapshot opens a connection with the pool's settings and takes a
// snapshot in a REPEATABLE READ transaction, which it keeps until close.
func holdSnapshot(ctx context.Context, pool *pgxpool.Pool) (*snapshotHolder, error) {
	cfg := pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = "pgseq bench soak: held snapshot"
	// The session must outlive any server-side limit on idle transactions.
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = "0"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting the session that holds a snapshot: %w", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err == nil {
		// The first statement takes the transaction's snapshot.
		_, err = tx.Exec(ctx, "SELECT 1")
	}
	if err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("taking the held snapshot: %w", err)
	}
	return &snapshotHolder{conn: conn, tx: tx}, nil
}

// check fails when the transaction did not last the run.
func (h *snapshotHolder) check(ctx context.Context) error {
	if _, err := h.tx.Exec(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("the transaction holding a snapshot ended before the run did: %w", err)
	}
	return nil
}

func (h *snapshotHolder) close(ctx context.Context) {
	_ = h.tx.Rollback(ctx)
	_ = h.conn.Close(ctx)
}

// sleepCtx waits d or until ctx ends; it reports whether ctx is still
// live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
