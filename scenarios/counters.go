package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/catalog"
)

// The counters scenario (RunCounters) measures inserts into tables with an
// attached counter: against the same table numbered by a plain bigserial,
// on one hot scope with 1, 8 and 64 clients (and 8 and 64 with the
// advisory_lock strategy), and the advisory_lock strategy beside
// counter_table at 1,000 and 100,000 rows per scope. Every insert is
// its own durable transaction. Cases run interleaved, round after round,
// and comparisons are per-round ratios summarised with a confidence
// interval (CountersReport).

// CounterCase names one measured configuration of the counters scenario.
type CounterCase string

// The counters scenario's cases, in run order.
const (
	CasePlain      CounterCase = "plain"
	CaseAttached   CounterCase = "attached"
	CaseHot1       CounterCase = "hot-1"
	CaseHot8       CounterCase = "hot-8"
	CaseHot64      CounterCase = "hot-64"
	CaseHotLock8   CounterCase = "hot-advisory_lock-8"
	CaseHotLock64  CounterCase = "hot-advisory_lock-64"
	CaseHot64Pool8 CounterCase = "hot-64-pool-8"
	CaseTableSmall CounterCase = "counter_table-1k"
	CaseLockSmall  CounterCase = "advisory_lock-1k"
	CaseTableLarge CounterCase = "counter_table-100k"
	CaseLockLarge  CounterCase = "advisory_lock-100k"
)

const (
	manyScopes        = 1000
	sizeScopes        = 8 // scopes of the rows-per-scope cases, one per client
	smallRowsPerScope = 1_000
	largeRowsPerScope = 100_000
	hotRows           = 10_000 // rows already in the hot scope
)

// counterCase is how a case runs.
type counterCase struct {
	name    CounterCase
	desc    string
	table   string
	clients int
	// scopes are chosen at random from 1..scopes for each insert, or with
	// dedicated, client i always inserts into scope i+1.
	scopes    int
	dedicated bool
	// conns, when set, is the number of connections the clients share (an
	// application pool); otherwise each client has its own.
	conns int
}

var counterCases = []counterCase{
	{CasePlain, "plain bigserial numbering, 8 clients, 1,000 scopes", "plain", 8, manyScopes, false, 0},
	{CaseAttached, "attached counter (counter_table), 8 clients, 1,000 scopes", "attached", 8, manyScopes, false, 0},
	{CaseHot1, "attached counter_table, one hot scope, 1 client", "hot", 1, 1, false, 0},
	{CaseHot8, "attached counter_table, one hot scope, 8 clients", "hot", 8, 1, false, 0},
	{CaseHot64, "attached counter_table, one hot scope, 64 clients", "hot", 64, 1, false, 0},
	{CaseHot64Pool8, "attached counter_table, one hot scope, 64 clients sharing 8 connections", "hot", 64, 1, false, 8},
	{CaseHotLock8, "attached advisory_lock, one hot scope, 8 clients", "hot_adv", 8, 1, false, 0},
	{CaseHotLock64, "attached advisory_lock, one hot scope, 64 clients", "hot_adv", 64, 1, false, 0},
	{CaseTableSmall, "counter_table, 1,000 rows per scope, 8 clients on 8 scopes", "ct_small", 8, sizeScopes, true, 0},
	{CaseLockSmall, "advisory_lock, 1,000 rows per scope, 8 clients on 8 scopes", "adv_small", 8, sizeScopes, true, 0},
	{CaseTableLarge, "counter_table, 100,000 rows per scope, 8 clients on 8 scopes", "ct_large", 8, sizeScopes, true, 0},
	{CaseLockLarge, "advisory_lock, 100,000 rows per scope, 8 clients on 8 scopes", "adv_large", 8, sizeScopes, true, 0},
}

// CounterCases returns the scenario's cases, in run order.
func CounterCases() []CounterCase {
	out := make([]CounterCase, len(counterCases))
	for i, c := range counterCases {
		out[i] = c.name
	}
	return out
}

// counterComparisons are the ratios the scenario reports: num/den of the
// same round.
var counterComparisons = []struct {
	name     string
	num, den CounterCase
	target   float64 // 0: none
}{
	{"attached counter vs plain bigserial (8 clients, 1,000 scopes)", CaseAttached, CasePlain, TargetAttachedVsPlain},
	{"hot scope: 64 clients vs 8", CaseHot64, CaseHot8, TargetHot64Vs8},
	{"hot scope: 64 clients through a pool of 8 connections vs 8 clients", CaseHot64Pool8, CaseHot8, 0},
	{"hot scope: 8 clients vs 1", CaseHot8, CaseHot1, 0},
	{"hot scope, advisory_lock: 64 clients vs 8", CaseHotLock64, CaseHotLock8, 0},
	{"hot scope, 64 clients: advisory_lock vs counter_table", CaseHotLock64, CaseHot64, 0},
	{"advisory_lock vs counter_table at 1,000 rows per scope", CaseLockSmall, CaseTableSmall, 0},
	{"advisory_lock vs counter_table at 100,000 rows per scope", CaseLockLarge, CaseTableLarge, 0},
	{"advisory_lock: 100,000 vs 1,000 rows per scope", CaseLockLarge, CaseLockSmall, 0},
	{"counter_table: 100,000 vs 1,000 rows per scope", CaseTableLarge, CaseTableSmall, 0},
}

// Targets of the counters scenario.
const (
	// TargetAttachedVsPlain: an attached counter keeps at least 70% of the
	// plain table's insert throughput.
	TargetAttachedVsPlain = 0.70
	// TargetHot64Vs8: one hot scope with 64 clients keeps at least 80% of
	// its 8-client throughput.
	TargetHot64Vs8 = 0.80
)

// CountersOptions configure RunCounters. Only Pool is required.
type CountersOptions struct {
	// Pool is the database. The clients get a pool of their own with the
	// same settings (65 connections).
	Pool *pgxpool.Pool
	// Rounds is the number of rounds of every case (default 6).
	Rounds int
	// Duration is how long each run inserts (default 1s).
	Duration time.Duration
	// SchemaPrefix names the scenario's two schemas, <prefix>_<random> for
	// pgseq and <prefix>_<random>_app for the tables (default "pgseq_bench").
	SchemaPrefix string
	// Progress, when set, is told about each step (setup, every run).
	Progress func(CounterProgress)
}

// CounterProgress is a step of the counters scenario: Run is nil during
// setup and warm-up.
type CounterProgress struct {
	Step string
	Run  *CounterRun
}

// CounterRun is one measured run.
type CounterRun struct {
	Round int         `json:"round"`
	Case  CounterCase `json:"case"`
	// Inserts committed during the run, in Seconds.
	Inserts int     `json:"inserts"`
	Seconds float64 `json:"seconds"`
	// InsertsPerSec is Inserts/Seconds.
	InsertsPerSec float64 `json:"inserts_per_sec"`
	// Latency is each insert's round trip (commit included) as its client
	// saw it.
	Latency Latency `json:"latency"`
	// HostCPUBusy is the fraction of all CPUs busy (-1 when unknown).
	HostCPUBusy float64 `json:"host_cpu_busy"`
	// Waits counts what the clients' backends were doing, sampled from
	// pg_stat_activity every 20ms: "Type:Event" while waiting, "running"
	// when active and not waiting, "idle" between statements.
	Waits map[string]int `json:"waits"`

	latencies []time.Duration
}

// CounterCaseSummary is one case over all rounds.
type CounterCaseSummary struct {
	Case        CounterCase `json:"case"`
	Description string      `json:"description"`
	Clients     int         `json:"clients"`
	// InsertsPerSec are the rounds' throughputs in round order, Median
	// their median.
	InsertsPerSec []float64 `json:"inserts_per_sec"`
	Median        float64   `json:"median_inserts_per_sec"`
	// Latency pools all rounds.
	Latency Latency `json:"latency"`
	// Waits is the share of each CounterRun.Waits entry, all rounds pooled.
	Waits map[string]float64 `json:"waits"`
}

// CounterComparison is the per-round ratio of two cases.
type CounterComparison struct {
	Name        string      `json:"name"`
	Numerator   CounterCase `json:"numerator"`
	Denominator CounterCase `json:"denominator"`
	Ratio       Ratio       `json:"ratio"`
	// Target is the lowest acceptable median ratio (0: none).
	Target float64 `json:"target,omitempty"`
}

// CountersSettings are the scenario's parameters.
type CountersSettings struct {
	Rounds            int     `json:"rounds"`
	RunSeconds        float64 `json:"run_seconds"`
	ManyScopes        int     `json:"many_scopes"`
	SizeScopes        int     `json:"size_scopes"`
	SmallRowsPerScope int     `json:"small_rows_per_scope"`
	LargeRowsPerScope int     `json:"large_rows_per_scope"`
	HotScopeRows      int     `json:"hot_scope_rows"`
}

// CountersReport is the counters scenario's result, written to
// results/counters.json and rendered as results/counters.md.
type CountersReport struct {
	Scenario    string               `json:"scenario"`
	StartedAt   time.Time            `json:"started_at"`
	Seconds     float64              `json:"seconds"`
	Environment Environment          `json:"environment"`
	Settings    CountersSettings     `json:"settings"`
	Cases       []CounterCaseSummary `json:"cases"`
	Comparisons []CounterComparison  `json:"comparisons"`
	Checks      []Check              `json:"checks"`
	// SetupSeconds is the time to create, preload and number the tables.
	SetupSeconds float64 `json:"setup_seconds"`
	// LoadBefore and LoadAfter are the host's 1-minute load averages when
	// the scenario started and ended (-1 when unknown): other work on the
	// machine shows in them, and makes runs vary.
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
	// Runs are the measured runs in the order they ran.
	Runs []CounterRun `json:"runs"`
}

// RunCounters runs the counters scenario: setup, an unreported warm-up run
// of every case, then Rounds rounds of every case (the order reversed every
// other round, so slow drift does not favour one side of a comparison).
func RunCounters(ctx context.Context, opts CountersOptions) (*CountersReport, error) {
	if opts.Pool == nil {
		return nil, errors.New("RunCounters: CountersOptions.Pool is required")
	}
	if opts.Rounds == 0 {
		opts.Rounds = 6
	}
	if opts.Duration == 0 {
		opts.Duration = time.Second
	}
	if opts.SchemaPrefix == "" {
		opts.SchemaPrefix = "pgseq_bench"
	}
	if opts.Rounds < 1 || opts.Duration < 0 {
		return nil, errors.New("RunCounters: Rounds and Duration must be positive")
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(CounterProgress) {}
	}
	started := time.Now()
	rep := &CountersReport{
		Scenario: "counters", StartedAt: started.UTC(), LoadBefore: loadAverage(),
		Settings: CountersSettings{
			Rounds: opts.Rounds, RunSeconds: opts.Duration.Seconds(), ManyScopes: manyScopes, SizeScopes: sizeScopes,
			SmallRowsPerScope: smallRowsPerScope, LargeRowsPerScope: largeRowsPerScope, HotScopeRows: hotRows,
		},
	}
	env, err := environment(ctx, opts.Pool)
	if err != nil {
		return nil, err
	}
	rep.Environment = env

	cfg := opts.Pool.Config()
	cfg.MaxConns = 65
	cfg.MinConns = 0
	clients, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the clients' pool: %w", err)
	}
	defer clients.Close()

	cr := &counterRunner{admin: opts.Pool, clients: clients, duration: opts.Duration, firstID: map[string]int64{}}
	cr.schema = opts.SchemaPrefix + "_" + randomHex(4)
	cr.app = cr.schema + "_app"
	defer func() {
		drop := context.WithoutCancel(ctx)
		for _, s := range []string{cr.app, cr.schema} {
			_, _ = opts.Pool.Exec(drop, "DROP SCHEMA IF EXISTS "+pgx.Identifier{s}.Sanitize()+" CASCADE")
		}
	}()
	progress(CounterProgress{Step: "creating and preloading tables"})
	setup := time.Now()
	if err := cr.setup(ctx); err != nil {
		return nil, fmt.Errorf("setting up: %w", err)
	}
	rep.SetupSeconds = time.Since(setup).Seconds()

	progress(CounterProgress{Step: "warm-up"})
	for _, c := range counterCases {
		if _, err := cr.run(ctx, c, 0, opts.Duration/4); err != nil {
			return nil, fmt.Errorf("warm-up, %s: %w", c.name, err)
		}
	}
	for round := 1; round <= opts.Rounds; round++ {
		order := slices.Clone(counterCases)
		if round%2 == 0 {
			slices.Reverse(order)
		}
		for _, c := range order {
			r, err := cr.run(ctx, c, round, opts.Duration)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, c.name, err)
			}
			rep.Runs = append(rep.Runs, r)
			progress(CounterProgress{Step: fmt.Sprintf("round %d/%d", round, opts.Rounds), Run: &r})
		}
	}
	rep.summarise()
	rep.Seconds = time.Since(started).Seconds()
	rep.LoadAfter = loadAverage()
	return rep, nil
}

// loadAverage returns the host's 1-minute load average (Linux), or -1.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return x
}

type counterRunner struct {
	admin, clients *pgxpool.Pool
	schema, app    string
	duration       time.Duration
	// firstID is, per table, the first id the runs insert: rows from it on
	// are deleted after every run, so every run starts from the same rows.
	firstID map[string]int64
}

func (cr *counterRunner) table(name string) string { return pgx.Identifier{cr.app, name}.Sanitize() }

// setup creates the tables, preloads the rows-per-scope ones, and applies
// their counters (which backfills the counter rows and creates the unique
// indexes).
func (cr *counterRunner) setup(ctx context.Context) error {
	exec := func(sql string, args ...any) error {
		if _, err := cr.admin.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%.60s…: %w", sql, err)
		}
		return nil
	}
	if err := exec("CREATE SCHEMA " + pgx.Identifier{cr.app}.Sanitize()); err != nil {
		return err
	}
	if err := exec(`CREATE TABLE ` + cr.table("plain") + ` (id bigserial PRIMARY KEY, project_id bigint NOT NULL,
		index bigserial NOT NULL, title text, UNIQUE (project_id, index))`); err != nil {
		return err
	}
	var counters []catalog.Counter
	attach := func(name, table, strategy string) {
		counters = append(counters, catalog.Counter{
			Name: name, Table: cr.app + "." + table, Column: "index", Scope: []string{"project_id"},
			Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: strategy,
		})
	}
	// The hot scope has history too: with an empty table, advisory_lock's
	// max() would be planned (and the plan cached per connection) as a
	// sequential scan, which the run's own inserts then make O(rows).
	for _, t := range []struct {
		name, strategy string
		scopes, rows   int
	}{
		{"attached", catalog.StrategyCounterTable, 0, 0},
		{"hot", catalog.StrategyCounterTable, 1, hotRows},
		{"hot_adv", catalog.StrategyAdvisoryLock, 1, hotRows},
		{"ct_small", catalog.StrategyCounterTable, sizeScopes, smallRowsPerScope},
		{"adv_small", catalog.StrategyAdvisoryLock, sizeScopes, smallRowsPerScope},
		{"ct_large", catalog.StrategyCounterTable, sizeScopes, largeRowsPerScope},
		{"adv_large", catalog.StrategyAdvisoryLock, sizeScopes, largeRowsPerScope},
	} {
		if err := exec(`CREATE TABLE ` + cr.table(t.name) + ` (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint, title text)`); err != nil {
			return err
		}
		if t.rows > 0 {
			if err := exec(`INSERT INTO `+cr.table(t.name)+` (project_id, index, title)
				SELECT s, i, 'seed' FROM generate_series(1, $1::int) s, generate_series(1, $2::int) i`, t.scopes, t.rows); err != nil {
				return err
			}
		}
		attach(t.name, t.name, t.strategy)
	}
	state := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}, Counters: counters}
	if err := applyConfig(ctx, cr.admin, cr.schema, state); err != nil {
		return err
	}
	for _, name := range []string{"plain", "attached", "hot", "hot_adv", "ct_small", "adv_small", "ct_large", "adv_large"} {
		// Runs vacuum their table themselves; autovacuum would only add
		// noise to whichever run it overlaps.
		if err := exec("ALTER TABLE " + cr.table(name) + " SET (autovacuum_enabled = off)"); err != nil {
			return err
		}
		if err := exec("VACUUM ANALYZE " + cr.table(name)); err != nil {
			return err
		}
		var next int64
		if err := cr.admin.QueryRow(ctx, `SELECT coalesce(max(id), 0) + 1 FROM `+cr.table(name)).Scan(&next); err != nil {
			return err
		}
		cr.firstID[name] = next
	}
	return nil
}

// run inserts from c.clients clients for d and returns the measurement;
// then it deletes the rows it inserted and vacuums the table.
func (cr *counterRunner) run(ctx context.Context, c counterCase, round int, d time.Duration) (CounterRun, error) {
	r := CounterRun{Round: round, Case: c.name}
	// Start every run from a checkpoint, so one run does not pay for the
	// previous one's dirty pages. Needs superuser or pg_checkpoint; without,
	// runs just vary more.
	_, _ = cr.admin.Exec(ctx, "CHECKPOINT")
	insert := `INSERT INTO ` + cr.table(c.table) + ` (project_id, title) VALUES ($1, 'bench')`
	// Open the connections first: the clock measures inserts only.
	nconns := c.clients
	if c.conns > 0 {
		nconns = min(c.conns, c.clients)
	}
	conns := make([]*pgxpool.Conn, nconns)
	defer func() {
		for _, conn := range conns {
			if conn != nil {
				conn.Release()
			}
		}
	}()
	for i := range conns {
		conn, err := cr.clients.Acquire(ctx)
		if err != nil {
			return r, err
		}
		conns[i] = conn
	}

	// Clients take a connection for each insert (their latency includes
	// waiting for one); with a connection each, always their own.
	free := make(chan *pgxpool.Conn, nconns)
	for _, conn := range conns {
		free <- conn
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		latencies []time.Duration
		errs      []error
		start     = make(chan struct{})
	)
	for i := 0; i < c.clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := make([]time.Duration, 0, 4096)
			<-start
			deadline := time.Now().Add(d)
			var err error
			for time.Now().Before(deadline) {
				scope := i + 1
				if !c.dedicated {
					scope = rand.N(c.scopes) + 1
				}
				t0 := time.Now()
				conn := <-free
				_, err = conn.Exec(ctx, insert, scope)
				free <- conn
				if err != nil {
					break
				}
				own = append(own, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, own...)
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		}()
	}
	host0 := hostCPU()
	t0 := time.Now()
	close(start)
	stopSampling := make(chan struct{})
	sampled := make(chan map[string]int)
	go func() { sampled <- cr.sampleWaits(ctx, insert, stopSampling) }()
	wg.Wait()
	elapsed := time.Since(t0)
	r.HostCPUBusy = host0.busySince(hostCPU())
	close(stopSampling)
	r.Waits = <-sampled
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	r.Inserts = len(latencies)
	r.Seconds = elapsed.Seconds()
	r.InsertsPerSec = float64(r.Inserts) / r.Seconds
	r.Latency = latencyStats(latencies)
	r.latencies = latencies

	if _, err := cr.admin.Exec(ctx, `DELETE FROM `+cr.table(c.table)+` WHERE id >= $1`, cr.firstID[c.table]); err != nil {
		return r, fmt.Errorf("deleting the run's rows: %w", err)
	}
	if _, err := cr.admin.Exec(ctx, `VACUUM `+cr.table(c.table)); err != nil {
		return r, fmt.Errorf("vacuuming: %w", err)
	}
	return r, nil
}

// sampleWaits samples what the backends running query are doing, every
// 20ms until stop is closed.
func (cr *counterRunner) sampleWaits(ctx context.Context, query string, stop <-chan struct{}) map[string]int {
	waits := map[string]int{}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return waits
		case <-t.C:
		}
		rows, err := cr.admin.Query(ctx, `
			SELECT CASE WHEN state <> 'active' THEN 'idle'
			            WHEN wait_event IS NULL THEN 'running'
			            ELSE wait_event_type || ':' || wait_event END, count(*)
			FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid() GROUP BY 1`, query)
		if err != nil {
			continue
		}
		for rows.Next() {
			var what string
			var n int
			if rows.Scan(&what, &n) == nil {
				waits[what] += n
			}
		}
		rows.Close()
	}
}

func (r *CountersReport) summarise() {
	byRound := map[CounterCase]map[int]float64{}
	r.Cases = nil
	for _, c := range counterCases {
		s := CounterCaseSummary{Case: c.name, Description: c.desc, Clients: c.clients}
		byRound[c.name] = map[int]float64{}
		var lat []time.Duration
		waits, samples := map[string]int{}, 0
		for _, run := range r.Runs {
			if run.Case == c.name {
				s.InsertsPerSec = append(s.InsertsPerSec, run.InsertsPerSec)
				byRound[c.name][run.Round] = run.InsertsPerSec
				lat = append(lat, run.latencies...)
				for k, n := range run.Waits {
					waits[k] += n
					samples += n
				}
			}
		}
		s.Waits = map[string]float64{}
		for k, n := range waits {
			s.Waits[k] = float64(n) / float64(samples)
		}
		s.Median = median(s.InsertsPerSec)
		s.Latency = latencyStats(lat)
		r.Cases = append(r.Cases, s)
	}
	r.Comparisons, r.Checks = nil, nil
	for _, cmp := range counterComparisons {
		var ratios []float64
		for round := 1; round <= r.Settings.Rounds; round++ {
			n, okN := byRound[cmp.num][round]
			d, okD := byRound[cmp.den][round]
			if okN && okD && d > 0 {
				ratios = append(ratios, n/d)
			}
		}
		c := CounterComparison{Name: cmp.name, Numerator: cmp.num, Denominator: cmp.den, Ratio: ratioStats(ratios), Target: cmp.target}
		r.Comparisons = append(r.Comparisons, c)
		if cmp.target > 0 && c.Ratio.N > 0 {
			r.Checks = append(r.Checks, Check{
				Name: cmp.name, Target: fmt.Sprintf("ratio ≥ %.2f", cmp.target),
				Measured: ratioLine(&c.Ratio), Met: c.Ratio.Median >= cmp.target,
			})
		}
	}
}

func (r *CountersReport) caseSummary(c CounterCase) *CounterCaseSummary {
	for i := range r.Cases {
		if r.Cases[i].Case == c {
			return &r.Cases[i]
		}
	}
	return nil
}

func (r *CountersReport) comparison(num, den CounterCase) *CounterComparison {
	for i := range r.Comparisons {
		if r.Comparisons[i].Numerator == num && r.Comparisons[i].Denominator == den {
			return &r.Comparisons[i]
		}
	}
	return nil
}
