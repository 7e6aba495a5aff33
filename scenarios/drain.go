package scenarios

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/queue"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// Variant names a drain scenario of the shipped drain.hcl that pgseq bench
// drain runs: its configuration, handler delay and keys (Case). bench drain
// sizes every variant with its own flags, not with the scenario's size.
type Variant string

// The drain variants, scenarios of drain.hcl. Tasks are spread evenly over
// a variant's task types.
const (
	// Baseline: one queue, one task type without a limit.
	Baseline Variant = "baseline"
	// Enabled: 100 task types, each limited to 10 — a limit that does not
	// bind when the workers hold fewer than 1,000 tasks at once.
	Enabled Variant = "enabled"
	// Mixed: 100 task types, one of them limited to 10.
	Mixed Variant = "mixed"
	// Many: 1,000 task types on one queue, each limited to 1,000 (50,000
	// slot groups): claim cost must not grow with the number of limited
	// types.
	Many Variant = "many"
	// High: source 002's concurrency-high, one task type limited to 500;
	// meant for many workers and large batches (run it beside the baseline
	// with the same workers).
	High Variant = "high"
	// Binding: one task type limited to 10 whose handlers sleep 20 ms, so
	// the limit binds: at most 10 run at once and the ideal is 500 tasks/s.
	// Reported as the share of that ideal and the running count sampled
	// through the run, not as a ratio.
	Binding Variant = "binding"
)

// Variants are every drain variant, in the order rounds run them.
var Variants = []Variant{Baseline, Enabled, Mixed, Many, High, Binding}

// DefaultVariants run when none are named: the throughput comparisons that
// share the default worker setup.
var DefaultVariants = []Variant{Baseline, Enabled, Mixed, Many}

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	names := make([]string, len(Variants))
	for i, v := range Variants {
		if string(v) == s {
			return v, nil
		}
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown drain variant %q (known: %s)", s, strings.Join(names, ", "))
}

//go:embed drain.hcl
var drainFile []byte

// drainScenarios are the scenarios of the shipped drain.hcl, parsed once.
var drainScenarios = sync.OnceValues(func() ([]scenariofile.Scenario, error) {
	scs, diags := scenariofile.Parse(map[string][]byte{"drain.hcl": drainFile})
	if diags.HasErrors() {
		return nil, fmt.Errorf("reading the shipped drain.hcl: %w", diags)
	}
	return scs, nil
})

// variantDescriptions replace the description of drain.hcl for the
// variants whose description there speaks of the workers and batches bench
// run gives them, which bench drain takes from its flags instead.
var variantDescriptions = map[Variant]string{
	High: "1 task type limited to 500",
}

// Case returns the variant as a DrainCase: the configuration, handler
// delay, keys and measurement window of the drain.hcl scenario of its
// name, with batchSize as its queue's batch_size.
func (v Variant) Case(batchSize int) (DrainCase, error) {
	scs, err := drainScenarios()
	if err != nil {
		return DrainCase{}, err
	}
	i := slices.IndexFunc(scs, func(sc scenariofile.Scenario) bool { return sc.Name == string(v) })
	if i < 0 {
		return DrainCase{}, fmt.Errorf("drain variant %q: the shipped drain.hcl declares no scenario of that name", v)
	}
	sc := scs[i]
	c := DrainCase{Name: v, Description: sc.Description, Config: sc.Config, HandlerDelay: sc.HandlerDelay,
		Keys: sc.Keys, MeasureUntil: sc.MeasureUntil}
	if d, ok := variantDescriptions[v]; ok {
		c.Description = d
	}
	c.Config.Queues = slices.Clone(sc.Config.Queues)
	c.Config.TaskTypes = slices.Clone(sc.Config.TaskTypes)
	for j := range c.Config.Queues {
		c.Config.Queues[j].BatchSize = batchSize
	}
	return c, nil
}

// benchQueue is the queue a drain case without one would use.
const benchQueue = "bench"

// DrainCase is one configuration a drain runs: tasks are spread evenly over
// its task types and drained from its first queue.
type DrainCase struct {
	// Name labels the case's runs (Run.Variant).
	Name        Variant
	Description string
	Config      catalog.State
	// HandlerDelay is how long each handler sleeps.
	HandlerDelay time.Duration
	// Keys gives the seeded tasks their partition keys (zero: none).
	Keys scenariofile.KeySpec
	// MeasureUntil, when above 0, ends the run when this share of the
	// tasks has completed: its throughput is theirs (Run.MeasuredTasks),
	// and the rest are dropped with the run's schema.
	MeasureUntil float64
}

// queue is the queue the case drains.
func (c DrainCase) queue() string {
	if len(c.Config.Queues) == 0 {
		return benchQueue
	}
	return c.Config.Queues[0].Name
}

// limit is the highest per-type limit of the case (0: none).
func (c DrainCase) limit() int {
	limit := 0
	for _, t := range c.Config.TaskTypes {
		limit = max(limit, t.Concurrency)
	}
	return limit
}

// limitedTasks is how many of n tasks, spread evenly over the case's types
// in order, are of limited types.
func (c DrainCase) limitedTasks(n int) int {
	types := c.Config.TaskTypes
	limited := 0
	for i, t := range types {
		if t.Concurrency > 0 {
			// Type i gets the tasks j with j % len(types) == i.
			limited += n / len(types)
			if i < n%len(types) {
				limited++
			}
		}
	}
	return limited
}

// DrainOptions configure RunDrain. Zero fields take the defaults shown.
type DrainOptions struct {
	// Pool is the database to run on: schemas are created in it and dropped
	// after each run. The workers get a pool of their own with the same
	// connection settings.
	Pool *pgxpool.Pool
	// Tasks is the number of no-op tasks per run (default 200,000).
	Tasks int
	// Rounds is how many times each variant runs, interleaved (default 3).
	Rounds int
	// Variants to run each round, in order (default Variants). Ratios need
	// Baseline among them.
	Variants []Variant
	// Cases, when set, replace Variants: the configurations to run each
	// round, in order. The first is the reference the others' ratios
	// compare with, and the warm-up drains it.
	Cases []DrainCase
	// Driver is what drains the tasks: DriverWorker (default) or
	// DriverSQL.
	Driver Driver
	// Workers is the number of queue.Workers draining at once (default 1:
	// on 2 cores one worker's claim and complete streams keep PostgreSQL
	// busy, and more workers hold more tasks at once, which makes the
	// enabled variant's limits bind); with DriverSQL, the number of
	// claimers (default SQLDriverWorkers).
	Workers int
	// PoolSize is each worker's number of handler goroutines (default 4).
	PoolSize int
	// BatchSize is the queue's batch_size, which the workers claim by
	// (default 200; SQLDriverBatchSize with DriverSQL).
	BatchSize int
	// FlushSize and FlushInterval are the workers' completion batching
	// (defaults: the batch size, queue.DefaultFlushInterval).
	FlushSize     int
	FlushInterval time.Duration
	// SchemaPrefix names the runs' schemas: <prefix>_<variant>_<round>_<random>
	// (default "pgseq_bench").
	SchemaPrefix string
	// Warmup is the size of an unreported baseline drain run first, so the
	// first measured round does not pay for cold caches (default
	// min(Tasks, 20,000); negative: none).
	Warmup int
	// StallTimeout fails a run that completes nothing for this long
	// (default 60s).
	StallTimeout time.Duration
	// Progress receives progress events; nil means none.
	Progress Progress
	// Counted runs on a server that counts the instructions it executes
	// (bench ab --instructions): the runs send it nothing but their work,
	// no sampling of running tasks or of other sessions, whose count
	// would grow with the time a run takes. RunningMax and OtherSessions
	// are then not measured.
	Counted bool
}

func (o *DrainOptions) defaults() error {
	if o.Pool == nil {
		return errors.New("scenarios: DrainOptions.Pool is required")
	}
	if o.Tasks <= 0 {
		o.Tasks = 200_000
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if len(o.Variants) == 0 && len(o.Cases) == 0 {
		o.Variants = DefaultVariants
	}
	if o.Driver == "" {
		o.Driver = DriverWorker
	}
	if _, err := ParseDriver(string(o.Driver)); err != nil {
		return err
	}
	if o.Workers <= 0 {
		o.Workers = 1
		if o.Driver == DriverSQL {
			o.Workers = SQLDriverWorkers
		}
	}
	if o.PoolSize <= 0 {
		o.PoolSize = 4
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 200
		if o.Driver == DriverSQL {
			o.BatchSize = SQLDriverBatchSize
		}
	}
	if o.BatchSize > 10000 {
		return fmt.Errorf("batch size %d is over the queue's maximum of 10000", o.BatchSize)
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = queue.DefaultFlushInterval
	}
	if o.SchemaPrefix == "" {
		o.SchemaPrefix = "pgseq_bench"
	}
	if o.Warmup == 0 {
		o.Warmup = min(o.Tasks, 20_000)
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = time.Minute
	}
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	if len(o.Cases) == 0 {
		for _, v := range o.Variants {
			c, err := v.Case(o.BatchSize)
			if err != nil {
				return err
			}
			o.Cases = append(o.Cases, c)
		}
	} else {
		o.Variants = nil
		for _, c := range o.Cases {
			if len(c.Config.Queues) == 0 || len(c.Config.TaskTypes) == 0 {
				return fmt.Errorf("drain case %q: needs a queue and a task type", c.Name)
			}
			o.Variants = append(o.Variants, c.Name)
		}
	}
	return nil
}

// Phase is what a run is doing.
type Phase string

// Run phases, in order.
const (
	PhaseSetup Phase = "setup" // creating the schema and applying the configuration
	PhaseSeed  Phase = "seed"  // enqueueing the tasks
	PhaseDrain Phase = "drain" // workers draining the queue
	PhaseDone  Phase = "done"  // finished; Event.Run holds the result
)

// Event reports a run's progress.
type Event struct {
	// Round is the round, from 1; 0 is the warm-up.
	Round   int
	Variant Variant
	Phase   Phase
	// Done of Total tasks seeded (PhaseSeed) or completed (PhaseDrain).
	Done, Total int
	// Run is the result, with PhaseDone.
	Run *Run
}

// Progress receives a drain's progress events, from one goroutine at a time.
type Progress interface {
	Update(Event)
}

type nopProgress struct{}

func (nopProgress) Update(Event) {}

// Run is one measured drain.
type Run struct {
	Variant Variant `json:"variant"`
	// Round is the round, from 1; 0 is the warm-up.
	Round int `json:"round"`
	Tasks int `json:"tasks"`
	// Seconds is the drain's wall time: from starting the workers to the
	// last task's completion committing.
	Seconds float64 `json:"seconds"`
	// TasksPerSec is Tasks/Seconds, end to end (claim → handler → complete);
	// with a measurement window (DrainCase.MeasureUntil),
	// MeasuredTasks/Seconds.
	TasksPerSec float64 `json:"tasks_per_sec"`
	// MeasuredTasks is the completions that ended a measurement window,
	// the run with it (Seconds is then their time); zero without one.
	MeasuredTasks int `json:"measured_tasks,omitempty"`
	// SeedSeconds is the time enqueue_batch took to enqueue the tasks
	// (chunks of 10,000), not part of the drain.
	SeedSeconds float64 `json:"seed_seconds"`
	// Claim and Complete are the claim and complete round trips' latencies
	// as the workers saw them.
	Claim    stats.Latency `json:"claim"`
	Complete stats.Latency `json:"complete"`
	// MeanClaimSize and MeanCompleteSize are tasks per claim (empty claims
	// included) and per complete call.
	MeanClaimSize    float64 `json:"mean_claim_size"`
	MeanCompleteSize float64 `json:"mean_complete_size"`
	// EmptyClaims counts claims that returned nothing, ShortClaims those
	// that returned fewer tasks than asked for but some (a limit bound, or
	// the queue ran dry).
	EmptyClaims int `json:"empty_claims"`
	ShortClaims int `json:"short_claims"`
	// TailSeconds is the time the last 1% of the tasks took: long when a
	// limited type's tasks were held back and drain alone at the end.
	TailSeconds float64 `json:"tail_seconds"`
	// Failed counts tasks failed (none expected: the handlers do nothing).
	Failed int `json:"failed"`
	// GoCPU is the CPU time this process used during the drain, in
	// seconds; HostCPUBusy the fraction of all CPUs busy (Linux, -1 when
	// unknown).
	GoCPU       float64 `json:"go_cpu_seconds"`
	HostCPUBusy float64 `json:"host_cpu_busy"`
	// ServerCPU and OtherCPU are the fractions of all CPUs' time the
	// PostgreSQL server used during the drain and everything else on the
	// host but this process and the server (competing load); -1 when the
	// server is not on this host or the platform does not tell.
	ServerCPU float64 `json:"server_cpu"`
	OtherCPU  float64 `json:"other_cpu"`
	// OtherSessions is the most sessions of other applications seen
	// active on the server at once during the drain (sampled every
	// 100 ms): anything above 0 competed with the benchmark.
	OtherSessions int `json:"other_sessions_max"`
	// Limit is the variant's per-type limit (0: none). RunningMax and
	// RunningMean are the most tasks of one type seen running at once and
	// the mean over RunningSamples samples taken through the drain (every
	// 10 ms for the binding variant, 50 ms otherwise).
	Limit int `json:"limit,omitempty"`
	// LimitedTasks is how many of the run's tasks were of limited types:
	// each gave a slot unit back (hand_off) when it finished.
	LimitedTasks   int     `json:"limited_tasks"`
	RunningMax     int     `json:"running_max"`
	RunningMean    float64 `json:"running_mean"`
	RunningSamples int     `json:"running_samples"`
	// HandlersMax is the most handlers of one type the run's workers ran
	// at once, counted in the workers themselves (the driver "worker"
	// only): with reserved successors (migration 036) a task starts
	// before the completion of the one it replaces has committed, and
	// this counts what the database's samples cannot.
	HandlersMax int `json:"handlers_max,omitempty"`
	// Functions is the server-side time of the runtime's functions during
	// the run (pg_stat_user_functions; needs a superuser, else empty).
	Functions []FunctionStat `json:"functions,omitempty"`

	claims, completes []time.Duration
}

// RunDrain runs the drain scenario: a warm-up, then Rounds rounds of every
// variant, interleaved, each in a fresh schema. It returns the report with
// every run and each variant's summary against the baseline.
func RunDrain(ctx context.Context, opts DrainOptions) (*DrainReport, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	started := time.Now()
	rep := &DrainReport{
		Scenario:  "drain",
		StartedAt: started.UTC(),
		Settings: DrainSettings{
			Driver: opts.Driver, Tasks: opts.Tasks, Rounds: opts.Rounds, Variants: opts.Variants, Reference: opts.Cases[0].Name,
			Workers: opts.Workers, PoolSize: opts.PoolSize, BatchSize: opts.BatchSize,
			FlushSize: opts.FlushSize, FlushIntervalMS: float64(opts.FlushInterval) / float64(time.Millisecond),
			Warmup: max(opts.Warmup, 0),
		},
	}
	if rep.Settings.FlushSize == 0 {
		rep.Settings.FlushSize = opts.BatchSize
	}
	if opts.Driver == DriverSQL { // no handler pool, no completion batching
		rep.Settings.PoolSize, rep.Settings.FlushSize, rep.Settings.FlushIntervalMS = 0, 0, 0
	}
	env, err := environment(ctx, opts.Pool)
	if err != nil {
		return nil, err
	}
	rep.Environment = env

	cfg := opts.Pool.Config()
	cfg.MaxConns = int32(opts.Workers*4 + 2)
	cfg.MinConns = 0
	// Server-side time per runtime function (pg_stat_user_functions) needs
	// track_functions, which only a superuser may set.
	var super bool
	if err := opts.Pool.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
		return nil, fmt.Errorf("checking the role: %w", err)
	}
	// Not in a counted run: reading the statistics waits for the server
	// processes to report them, a number of polls that depends on time.
	track := super && !opts.Counted
	if track {
		cfg.ConnConfig.RuntimeParams["track_functions"] = "pl"
	}
	// In a counted run every connection is opened now, so every run opens
	// as many: the pool would otherwise open one more or less as the
	// timing goes, and a server process's start is counted too.
	workerPool, err := openPool(ctx, cfg, opts.Counted)
	if err != nil {
		return nil, fmt.Errorf("opening the workers' pool: %w", err)
	}
	defer workerPool.Close()
	d := &drainer{opts: opts, admin: opts.Pool, workers: workerPool, trackFunctions: track,
		appName: cfg.ConnConfig.RuntimeParams["application_name"]}

	if opts.Warmup > 0 {
		if _, err := d.run(ctx, opts.Cases[0], 0, opts.Warmup); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	for round := 1; round <= opts.Rounds; round++ {
		for _, c := range opts.Cases {
			r, err := d.run(ctx, c, round, opts.Tasks)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, c.Name, err)
			}
			rep.Runs = append(rep.Runs, r)
		}
	}
	rep.summarise(opts.Cases)
	rep.Seconds = time.Since(started).Seconds()
	return rep, nil
}

// openAll opens every connection pool may hold (MaxConns), at once.
func openAll(ctx context.Context, pool *pgxpool.Pool) error {
	conns := make([]*pgxpool.Conn, 0, pool.Config().MaxConns)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range pool.Config().MaxConns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("opening connection %d of %d: %w", len(conns)+1, pool.Config().MaxConns, err)
		}
		conns = append(conns, c)
	}
	return nil
}

type drainer struct {
	opts  DrainOptions
	admin *pgxpool.Pool
	// workers is the workers' pool, shared by the runs so that every run
	// finds its server processes warm (plans and caches), as the warm-up
	// left them.
	workers        *pgxpool.Pool
	trackFunctions bool
	// appName is the benchmark's application_name; sessions with
	// another one are other load.
	appName string
}

// runPools returns the pools a run's own statements go through: the
// apply's, and the one of the rest (seeding, ANALYZE, the checks, the
// drop). Outside a counted run both are the shared admin pool.
//
// In a counted run each is new, its connections opened before it is
// used, so that every run starts the same server processes for the same
// work: through the shared pool, which of its warm connections a
// statement lands on depends on timing, and one that lands on a cold
// connection counts the catalog reads of its tables and functions again
// (about 100 M instructions, 1.3% of the baseline scenario's count). The
// apply uses two (it reads the state on a second connection) and no
// third to watch its lock waits (applier.Options.NoLockWatch).
func (d *drainer) runPools(ctx context.Context) (apply, admin *pgxpool.Pool, err error) {
	if !d.opts.Counted {
		return d.admin, d.admin, nil
	}
	cfg := d.admin.Config()
	cfg.MaxConns = 2
	if apply, err = openPool(ctx, cfg, true); err != nil {
		return nil, nil, fmt.Errorf("opening the apply's connections: %w", err)
	}
	cfg = d.admin.Config()
	cfg.MaxConns = 1
	if admin, err = openPool(ctx, cfg, true); err != nil {
		apply.Close()
		return nil, nil, fmt.Errorf("opening the run's connection: %w", err)
	}
	return apply, admin, nil
}

// openPool opens a pool with cfg. For a counted run it dials with
// countedConnectTimeout and opens every connection before it returns.
func openPool(ctx context.Context, cfg *pgxpool.Config, counted bool) (*pgxpool.Pool, error) {
	if counted {
		cfg.ConnConfig.ConnectTimeout = countedConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if counted {
		if err := openAll(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

// countedConnectTimeout bounds opening a connection in a counted run. A
// server process under valgrind takes seconds to start on a loaded
// machine, and a connection given up on is a process counted for nothing,
// and a second one started.
const countedConnectTimeout = 2 * time.Minute

// seedChunk is the number of tasks per enqueue_batch call when seeding.
const seedChunk = 10_000

func (d *drainer) run(ctx context.Context, c DrainCase, round, tasks int) (Run, error) {
	v := c.Name
	r := Run{Variant: v, Round: round, Tasks: tasks}
	ev := Event{Round: round, Variant: v, Total: tasks}
	report := func(p Phase, done int) {
		ev.Phase, ev.Done = p, done
		d.opts.Progress.Update(ev)
	}
	report(PhaseSetup, 0)

	applyPool, admin, err := d.runPools(ctx)
	if err != nil {
		return r, err
	}
	if admin != d.admin {
		defer admin.Close()
	}
	schema := fmt.Sprintf("%s_%s_%d_%s", d.opts.SchemaPrefix, v, round, randomHex(3))
	defer func() {
		drop := context.WithoutCancel(ctx)
		_, _ = admin.Exec(drop, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	}()
	// A counted run's apply opens no session to watch its lock waits
	// (runPools).
	err = applyConfigWith(ctx, applyPool, schema, c.Config, applier.Options{NoLockWatch: d.opts.Counted})
	if applyPool != d.admin {
		applyPool.Close()
	}
	if err != nil {
		return r, err
	}

	// Seed: tasks spread evenly over the types, in id order round robin,
	// each with its key from c.Keys.
	types := c.Config.TaskTypes
	keys := assignKeys(c.Keys, tasks)
	client := queue.NewClient(admin, schema)
	seedStart := time.Now()
	batch := make([]queue.NewTask, 0, seedChunk)
	for i := 0; i < tasks; i += seedChunk {
		batch = batch[:0]
		for j := i; j < min(i+seedChunk, tasks); j++ {
			t := queue.NewTask{Type: types[j%len(types)].Name}
			if keys != nil {
				t.PartitionKey = keyName(int(keys[j]))
			}
			batch = append(batch, t)
		}
		if _, err := client.EnqueueBatch(ctx, batch); err != nil {
			return r, fmt.Errorf("seeding: %w", err)
		}
		report(PhaseSeed, i+len(batch))
	}
	r.SeedSeconds = time.Since(seedStart).Seconds()
	if _, err := admin.Exec(ctx, "ANALYZE "+pgx.Identifier{schema, "tasks"}.Sanitize()); err != nil {
		return r, fmt.Errorf("analyzing the seeded tasks: %w", err)
	}
	// Start every run from a checkpoint, so one run does not pay for the
	// previous one's dirty pages. Needs superuser or pg_checkpoint; without,
	// runs just vary more.
	_, _ = admin.Exec(ctx, "CHECKPOINT")

	// With a measurement window the run ends when it is reached: what
	// remains is the backlog of keys whose limits bind, drained a few
	// tasks at a time, which measures nothing more.
	measured := tasks
	if c.MeasureUntil > 0 {
		measured = max(1, int(c.MeasureUntil*float64(tasks)))
	}
	obs := &drainObserver{target: int64(measured), done: make(chan struct{})}
	var workers []func(context.Context) error
	if d.opts.Driver == DriverSQL {
		workers, err = d.sqlClaimers(ctx, c, schema, round, obs)
	} else {
		workers, err = d.goWorkers(c, schema, round, obs)
	}
	if err != nil {
		return r, err
	}

	report(PhaseDrain, 0)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, len(workers))
	var wg sync.WaitGroup
	postmaster := d.postmaster(ctx)
	sampler := d.sampleRunning(runCtx, schema, c.HandlerDelay > 0)
	cpu0, split0 := processCPU(), sampleCPU(postmaster)
	start := time.Now()
	for _, w := range workers {
		wg.Go(func() {
			if err := w(runCtx); err != nil {
				errs <- err
			}
		})
	}
	others, err := d.wait(ctx, obs, errs, report)
	cpu1, split1 := processCPU(), sampleCPU(postmaster)
	stop()
	wg.Wait()
	running := sampler.finish()
	if err != nil {
		return r, err
	}
	r.Limit, r.RunningMax, r.RunningMean, r.RunningSamples = c.limit(), running.max, running.mean(), running.n
	obs.mu.Lock()
	r.HandlersMax = obs.handlingMax
	obs.mu.Unlock()
	r.LimitedTasks = c.limitedTasks(tasks)
	if d.trackFunctions {
		if r.Functions, err = d.functionStats(ctx, schema); err != nil {
			return r, err
		}
	}

	elapsed := obs.finishedAt.Sub(start)
	r.Seconds = elapsed.Seconds()
	r.TasksPerSec = float64(obs.finished) / r.Seconds
	if measured < tasks {
		r.MeasuredTasks = int(obs.finished)
	}
	r.GoCPU = (cpu1 - cpu0).Seconds()
	r.HostCPUBusy = split0.host.busySince(split1.host)
	r.ServerCPU, r.OtherCPU = split0.shares(split1)
	r.OtherSessions = others
	obs.mu.Lock()
	r.claims, r.completes = obs.claims, obs.completes
	r.Claim, r.Complete = stats.NewLatency(obs.claims), stats.NewLatency(obs.completes)
	if len(obs.claims) > 0 {
		r.MeanClaimSize = float64(obs.claimed) / float64(len(obs.claims))
	}
	if len(obs.completes) > 0 {
		r.MeanCompleteSize = float64(obs.completed.Load()) / float64(len(obs.completes))
	}
	r.EmptyClaims, r.ShortClaims, r.Failed = obs.empty, obs.short, obs.failed
	if at := obs.at99.Load(); at != 0 {
		r.TailSeconds = obs.finishedAt.Sub(time.Unix(0, at)).Seconds()
	}
	obs.mu.Unlock()

	var left int
	if err := admin.QueryRow(ctx, migrations.Render(`SELECT count(*) FROM {{schema}}.tasks WHERE status <> 'completed'`, schema)).Scan(&left); err != nil {
		return r, fmt.Errorf("checking the drain: %w", err)
	}
	if left > tasks-measured {
		return r, fmt.Errorf("%s left uncompleted after the drain", textfmt.Plural(left, "task"))
	}
	ev.Run = &r
	report(PhaseDone, tasks)
	return r, nil
}

// countedInterval is the interval of a worker's periodic calls
// (heartbeats, maintenance, reading its settings) in a counted run: an
// hour, so that a run makes the first of each only, whatever its time (a
// counted drain takes 10-60 s, and a periodic call's count would grow with
// it); 0 (the worker's defaults) otherwise.
func (d *drainer) countedInterval() time.Duration {
	if d.opts.Counted {
		return time.Hour
	}
	return 0
}

// goWorkers returns the worker driver's queue.Workers' Run methods for one
// run.
func (d *drainer) goWorkers(c DrainCase, schema string, round int, obs *drainObserver) ([]func(context.Context) error, error) {
	handlers := sleepHandlers(c.Config.TaskTypes, c.HandlerDelay)
	workers := make([]func(context.Context) error, d.opts.Workers)
	for i := range workers {
		w, err := queue.NewWorker(queue.Config{
			Pool: d.workers, Schema: schema, Queue: c.queue(),
			WorkerID: fmt.Sprintf("bench-%s-%d-%d", c.Name, round, i+1),
			PoolSize: d.opts.PoolSize, FlushSize: d.opts.FlushSize, FlushInterval: d.opts.FlushInterval,
			Handlers: handlers, Observer: obs, Version: "pgseq bench",
			HeartbeatInterval: d.countedInterval(), MaintenanceInterval: d.countedInterval(),
			SettingsInterval: d.countedInterval(),
		})
		if err != nil {
			return nil, err
		}
		workers[i] = w.Run
	}
	return workers, nil
}

// wait waits for the drain to complete, reporting progress, and fails when
// a worker stops or nothing completes for StallTimeout. It returns the most
// sessions of other applications seen active at once.
func (d *drainer) wait(ctx context.Context, obs *drainObserver, errs <-chan error, report func(Phase, int)) (int, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last, lastAt := int64(0), time.Now()
	others := 0
	for {
		select {
		case <-obs.done:
			return others, nil
		case err := <-errs:
			return others, fmt.Errorf("a worker stopped: %w", err)
		case <-ctx.Done():
			return others, ctx.Err()
		case <-tick.C:
			n := obs.completed.Load()
			report(PhaseDrain, int(n))
			if n != last {
				last, lastAt = n, time.Now()
			} else if time.Since(lastAt) > d.opts.StallTimeout {
				return others, fmt.Errorf("stalled: %d of %s completed, none in %s", n, textfmt.Plural(int(obs.target), "task"), d.opts.StallTimeout)
			}
			if d.opts.Counted {
				continue
			}
			var active int
			if err := d.admin.QueryRow(ctx, otherSessions, d.appName).Scan(&active); err == nil {
				others = max(others, active)
			}
		}
	}
}

// FunctionStat is the server-side time of one runtime function over a run.
type FunctionStat struct {
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
	// TotalMS includes the functions it calls; SelfMS does not.
	TotalMS float64 `json:"total_ms"`
	SelfMS  float64 `json:"self_ms"`
}

// MeanMS is the mean time per call, called functions included.
func (f FunctionStat) MeanMS() float64 {
	if f.Calls == 0 {
		return 0
	}
	return f.TotalMS / float64(f.Calls)
}

// reportedFunctions are the runtime functions whose server time a run
// reports: the claim, the completion, and the slot-unit steps inside them
// (hand_off runs inside complete; take_units inside enqueue).
var reportedFunctions = []string{"claim", "complete", "complete_and_take", "complete_and_reserve", "hand_off", "offer_units", "give_back",
	"promote_started", "reserve_successors", "take_units", "admit_waiting", "admit_keys"}

// functionStats reads the runtime functions' statistics of a run's schema
// (a fresh schema per run: they count this run only). A server process
// reports its pending statistics when it goes idle at least a second after
// its last report, so each of the workers' connections asks for a flush
// (pg_stat_force_next_flush, PostgreSQL 15 and later), or, on an older
// server, runs one statement after a pause.
func (d *drainer) functionStats(ctx context.Context, schema string) ([]FunctionStat, error) {
	conns := d.workers.AcquireAllIdle(ctx)
	forced := true
	for _, c := range conns {
		if _, err := c.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			forced = false
		}
	}
	if !forced {
		time.Sleep(1100 * time.Millisecond)
		for _, c := range conns {
			_, _ = c.Exec(ctx, "SELECT 1")
		}
	}
	for _, c := range conns {
		c.Release()
	}
	const q = `SELECT funcname::text, calls, total_time, self_time FROM pg_stat_user_functions
	           WHERE schemaname = $1 AND funcname = ANY($2) ORDER BY array_position($2, funcname::text)`
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows, err := d.admin.Query(ctx, q, schema, reportedFunctions)
		if err != nil {
			return nil, fmt.Errorf("reading function statistics: %w", err)
		}
		var out []FunctionStat
		var f FunctionStat
		if _, err := pgx.ForEachRow(rows, []any{&f.Name, &f.Calls, &f.TotalMS, &f.SelfMS}, func() error {
			out = append(out, f)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("reading function statistics: %w", err)
		}
		complete := slices.ContainsFunc(out, func(f FunctionStat) bool { return f.Name == "complete" || f.Name == "complete_and_take" })
		if complete || time.Now().After(deadline) {
			return out, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runningSampler counts, through a drain, the running tasks of the busiest
// task type.
type runningSampler struct {
	done chan struct{}
	max  int
	sum  int
	n    int
}

func (s *runningSampler) mean() float64 {
	if s.n == 0 {
		return 0
	}
	return float64(s.sum) / float64(s.n)
}

// sampleRunning samples until ctx ends; finish returns the samples.
// Slow handlers (a binding limit) are sampled every 10 ms, others every
// 50 ms; none in a counted run (DrainOptions.Counted).
func (d *drainer) sampleRunning(ctx context.Context, schema string, slow bool) *runningSampler {
	s := &runningSampler{done: make(chan struct{})}
	if d.opts.Counted {
		close(s.done)
		return s
	}
	every := 50 * time.Millisecond
	if slow {
		every = 10 * time.Millisecond
	}
	q := migrations.Render(`SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM {{schema}}.tasks
		WHERE status = 'running' GROUP BY type) x`, schema)
	sample := func() {
		var n int
		if err := d.admin.QueryRow(ctx, q).Scan(&n); err == nil {
			s.max, s.sum, s.n = max(s.max, n), s.sum+n, s.n+1
		}
	}
	go func() {
		defer close(s.done)
		// A first sample at once: a drain shorter than one interval (600
		// tasks take under 50 ms) still has one, and its running_max.
		sample()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	return s
}

func (s *runningSampler) finish() *runningSampler {
	<-s.done
	return s
}

// postmaster returns the pid of the server's postmaster when the server
// runs on this host (the parent of this session's backend), else "".
func (d *drainer) postmaster(ctx context.Context) string {
	var pid int
	if err := d.admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return ""
	}
	_, ppid, ok := procTicks(strconv.Itoa(pid))
	if !ok {
		return ""
	}
	comm, err := os.ReadFile("/proc/" + ppid + "/comm")
	if err != nil || !strings.HasPrefix(string(comm), "postgres") {
		return ""
	}
	return ppid
}

// otherSessions counts the server's active sessions of other applications.
const otherSessions = `SELECT count(*) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND state = 'active'
  AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1`

// drainObserver counts completions and records round-trip latencies.
type drainObserver struct {
	queue.NopObserver
	target     int64
	completed  atomic.Int64
	done       chan struct{}
	finishedAt time.Time    // written once, before done is closed
	at99       atomic.Int64 // unix nanoseconds when 99% were completed
	finished   int64        // completions counted at finishedAt (a batch may pass target)

	mu                sync.Mutex
	claims, completes []time.Duration
	claimed           int64
	empty, short      int
	failed            int
	// handling counts, per task type, the handlers running now, in every
	// worker of the run; handlingMax is the most of one type at once.
	handling    map[string]int
	handlingMax int
}

// Started counts t's handler as running (see handling).
func (o *drainObserver) Started(t *queue.Task) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.handling == nil {
		o.handling = map[string]int{}
	}
	o.handling[t.Type]++
	o.handlingMax = max(o.handlingMax, o.handling[t.Type])
}

// Handled counts t's handler as returned.
func (o *drainObserver) Handled(t *queue.Task, _ time.Duration, _ error, _ bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handling[t.Type]--
}

func (o *drainObserver) Claimed(requested, got int, latency time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		return
	}
	o.claims = append(o.claims, latency)
	o.claimed += int64(got)
	switch {
	case got == 0:
		o.empty++
	case got < requested:
		o.short++
	}
}

func (o *drainObserver) Completed(_, accepted int, latency time.Duration, err error) {
	if err != nil {
		return
	}
	o.mu.Lock()
	o.completes = append(o.completes, latency)
	o.mu.Unlock()
	n := o.completed.Add(int64(accepted))
	if p := o.target * 99 / 100; n >= p && n-int64(accepted) < p {
		o.at99.Store(time.Now().UnixNano())
	}
	if n >= o.target && n-int64(accepted) < o.target {
		o.finishedAt, o.finished = time.Now(), n
		close(o.done)
	}
}

func (o *drainObserver) Failed(*queue.Task, string, error, time.Duration) {
	o.mu.Lock()
	o.failed++
	o.mu.Unlock()
}

// sleepHandlers returns a handler for each type that sleeps delay (none
// when 0), or until its task's context ends.
func sleepHandlers(types []catalog.TaskType, delay time.Duration) map[string]queue.Handler {
	handler := func(ctx context.Context, _ *queue.Task) error {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	handlers := make(map[string]queue.Handler, len(types))
	for _, t := range types {
		handlers[t.Name] = handler
	}
	return handlers
}

// applyConfig creates schema with pgseq's runtime and applies cfg to it.
func applyConfig(ctx context.Context, db *pgxpool.Pool, schema string, cfg catalog.State) error {
	return applyConfigWith(ctx, db, schema, cfg, applier.Options{})
}

// applyConfigWith is applyConfig with opts (its Client and Version are
// set here).
func applyConfigWith(ctx context.Context, db *pgxpool.Pool, schema string, cfg catalog.State, opts applier.Options) error {
	opts.Client, opts.Version = "pgseq bench", "bench"
	if _, err := reconcile.PlanAndApply(ctx, db, schema, cfg, opts, nil); err != nil {
		return fmt.Errorf("applying the scenario's configuration to %s: %w", schema, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

func environment(ctx context.Context, db *pgxpool.Pool) (report.Environment, error) {
	env := report.Environment{
		GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), CPUModel: cpuModel(),
		PostgresSettings: map[string]string{},
	}
	if err := db.QueryRow(ctx, "SELECT version()").Scan(&env.Postgres); err != nil {
		return env, fmt.Errorf("reading the server version: %w", err)
	}
	rows, err := db.Query(ctx, "SELECT name, current_setting(name) FROM unnest($1::text[]) AS name", report.ReportedSettings)
	if err != nil {
		return env, fmt.Errorf("reading server settings: %w", err)
	}
	var name, value string
	_, err = pgx.ForEachRow(rows, []any{&name, &value}, func() error {
		env.PostgresSettings[name] = value
		return nil
	})
	if err != nil {
		return env, fmt.Errorf("reading server settings: %w", err)
	}
	return env, nil
}
