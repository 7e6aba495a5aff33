package scenarios

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// The counters scenario (RunCounters) measures inserts into tables with an
// attached counter: against the same table numbered by a plain bigserial,
// on one hot scope with 1, 8 and 64 clients (and 8 and 64 with the
// advisory_lock strategy), and the advisory_lock strategy beside
// counter_table at 1,000 and 100,000 rows per scope. Every insert is
// its own durable transaction. Cases run interleaved, round after round,
// and comparisons are per-round ratios summarised with a confidence
// interval (CountersReport).
//
// The cases are the scenarios of the shipped bench-counters/counters.hcl,
// embedded, run by the counters engine (counterRunner) that
// RunCounterScenarios runs declared scenarios on, at the rounds and
// duration of CountersOptions. The comparisons between them, and their
// targets, are the report's (counterComparisons): its notes discuss those
// pairs. The cases are not the scenarios of the shipped counters.hcl
// (pgseq bench run's): the hot-scope cases share a table, hot-1 and
// hot-64-pool-8 have no counterpart there, plain and attached start from
// empty scopes, and the names are those of bench counters' reports.

// CounterCase names one measured configuration of the counters workload:
// one of RunCounters' cases, or a scenario's name (RunCounterScenarios).
type CounterCase string

// The cases of RunCounters that its comparisons and notes name: scenarios
// of bench-counters/counters.hcl, listed in the file's order.
const (
	CasePlain      CounterCase = "plain"
	CaseAttached   CounterCase = "attached"
	CaseHot1       CounterCase = "hot-1"
	CaseHot8       CounterCase = "hot-8"
	CaseHot64      CounterCase = "hot-64"
	CaseHot64Pool8 CounterCase = "hot-64-pool-8"
	CaseHotLock8   CounterCase = "hot-advisory_lock-8"
	CaseHotLock64  CounterCase = "hot-advisory_lock-64"
	CaseTableSmall CounterCase = "counter_table-1k"
	CaseLockSmall  CounterCase = "advisory_lock-1k"
	CaseTableLarge CounterCase = "counter_table-100k"
	CaseLockLarge  CounterCase = "advisory_lock-100k"
)

// countersFileName is the shipped file of RunCounters' cases, relative to
// this package's directory; diagnostics name it so.
const countersFileName = "bench-counters/counters.hcl"

//go:embed bench-counters/counters.hcl
var countersFile []byte

// countersFileScenarios are the scenarios of the shipped
// bench-counters/counters.hcl, parsed and checked once.
var countersFileScenarios = sync.OnceValues(func() ([]scenariofile.Scenario, error) {
	return parseCountersFile(countersFileName, countersFile)
})

// parseCountersFile parses the cases of RunCounters from src (named name)
// and checks what RunCounters needs of them beyond the scenario language:
// no case sizes itself beyond its clients and connections (rounds and
// duration are the run's, CountersOptions), none has against or thresholds
// (the report compares the cases, counterComparisons), and every case a
// comparison names is declared.
func parseCountersFile(name string, src []byte) ([]scenariofile.Scenario, error) {
	scs, diags := scenariofile.Parse(map[string][]byte{name: src})
	if diags.HasErrors() {
		return nil, fmt.Errorf("reading %s: %w", name, diags)
	}
	var errs []error
	declared := map[CounterCase]bool{}
	for _, sc := range scs {
		declared[CounterCase(sc.Name)] = true
		at := hcldecode.PosString(sc.DeclRange)
		if sc.Size.Rounds != 0 || sc.Size.Duration != 0 || sc.Quick != (scenariofile.Size{}) {
			errs = append(errs, fmt.Errorf("%s: case %q sets rounds, duration or a quick block; bench counters takes rounds and duration from its flags, and has no --quick", at, sc.Name))
		}
		if sc.Against != "" || len(sc.Thresholds) > 0 {
			errs = append(errs, fmt.Errorf("%s: case %q has against or thresholds; bench counters compares its cases itself, and judges only its comparisons' targets", at, sc.Name))
		}
	}
	for _, c := range counterComparisons {
		for _, cc := range []CounterCase{c.num, c.den} {
			if !declared[cc] {
				errs = append(errs, fmt.Errorf("%s declares no case %q, which comparison %q needs", name, cc, c.name))
				declared[cc] = true // reported once
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return scs, nil
}

// countersFileCases returns the tables and cases of the shipped file, each
// case run rounds times for d.
func countersFileCases(rounds int, d time.Duration) ([]counterTable, []counterCase, error) {
	scs, err := countersFileScenarios()
	if err != nil {
		return nil, nil, err
	}
	sizes := make(map[string]scenariofile.Size, len(scs))
	for _, sc := range scs {
		size := sc.Size
		size.Rounds, size.Duration = rounds, d
		sizes[sc.Name] = size
	}
	tables, cases, _, err := counterScenarioCases(scs, sizes)
	if err != nil {
		return nil, nil, fmt.Errorf("the cases of %s: %w", countersFileName, err)
	}
	return tables, cases, nil
}

// CounterCases returns the cases of RunCounters, in run order: the
// scenarios of the shipped bench-counters/counters.hcl.
func CounterCases() ([]CounterCase, error) {
	_, cases, err := countersFileCases(1, time.Second)
	if err != nil {
		return nil, err
	}
	out := make([]CounterCase, len(cases))
	for i, c := range cases {
		out[i] = c.name
	}
	return out, nil
}

// counterComparisons are the ratios the scenario reports, num/den of the
// same round, in report order: pairs of cases of the shipped file, which
// must declare them (parseCountersFile).
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
	// Retries are the inserts the optimistic strategy ran again after a
	// unique violation (another client took the number first); zero for
	// the other strategies.
	Retries int `json:"retries,omitempty"`
	// InsertsPerSec is Inserts/Seconds.
	InsertsPerSec float64 `json:"inserts_per_sec"`
	// Latency is each insert's round trip (commit included) as its client
	// saw it, from waiting for a connection to the commit of its last try.
	Latency stats.Latency `json:"latency"`
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
	Latency stats.Latency `json:"latency"`
	// Waits is the share of each CounterRun.Waits entry, all rounds pooled.
	Waits map[string]float64 `json:"waits"`
}

// CounterComparison is the per-round ratio of two cases.
type CounterComparison struct {
	Name        string      `json:"name"`
	Numerator   CounterCase `json:"numerator"`
	Denominator CounterCase `json:"denominator"`
	Ratio       stats.Ratio `json:"ratio"`
	// Target is the lowest acceptable median ratio (0: none).
	Target float64 `json:"target,omitempty"`
}

// CountersSettings are the scenario's parameters: the run's rounds and
// run length, and what the cases the report discusses declare in the
// shipped file (countersSettings).
type CountersSettings struct {
	Rounds     int     `json:"rounds"`
	RunSeconds float64 `json:"run_seconds"`
	// ManyScopes are the scopes of plain (and attached).
	ManyScopes int `json:"many_scopes"`
	// SizeScopes are the scopes of the rows-per-scope cases, one per
	// client; SmallRowsPerScope and LargeRowsPerScope their rows per scope
	// (counter_table-1k, counter_table-100k).
	SizeScopes        int `json:"size_scopes"`
	SmallRowsPerScope int `json:"small_rows_per_scope"`
	LargeRowsPerScope int `json:"large_rows_per_scope"`
	// HotScopeRows are the rows already in the hot scope (hot-8's table).
	HotScopeRows int `json:"hot_scope_rows"`
}

// CountersReport is the counters scenario's result, written to
// results/counters.json and rendered as results/counters.md.
type CountersReport struct {
	Scenario    string               `json:"scenario"`
	StartedAt   time.Time            `json:"started_at"`
	Seconds     float64              `json:"seconds"`
	Environment report.Environment   `json:"environment"`
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
// It runs the cases of the shipped bench-counters/counters.hcl on the same
// engine as RunCounterScenarios, and summarises them as a CountersReport.
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
	tables, cases, err := countersFileCases(opts.Rounds, opts.Duration)
	if err != nil {
		return nil, err
	}
	rep := &CountersReport{
		Scenario: "counters", StartedAt: started.UTC(), LoadBefore: loadAverage(),
		Settings: countersSettings(opts.Rounds, opts.Duration, tables, cases),
	}
	env, err := environment(ctx, opts.Pool)
	if err != nil {
		return nil, err
	}
	rep.Environment = env

	cr, err := newCounterRunner(ctx, opts.Pool, opts.SchemaPrefix, cases)
	if err != nil {
		return nil, err
	}
	defer cr.close(ctx)
	progress(CounterProgress{Step: "creating and preloading tables"})
	setup := time.Now()
	if err := cr.setup(ctx, tables); err != nil {
		return nil, fmt.Errorf("setting up: %w", err)
	}
	rep.SetupSeconds = time.Since(setup).Seconds()
	if rep.Runs, err = cr.runRounds(ctx, cases, progress); err != nil {
		return nil, err
	}
	if err := cr.verifyTables(ctx); err != nil {
		return nil, err
	}
	rep.summarise(cases)
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

// knownCounterStrategy reports whether s is one of the counters workload's
// strategies.
func knownCounterStrategy(s string) bool {
	switch s {
	case scenariofile.StrategyCounterTable, scenariofile.StrategyAdvisoryLock, scenariofile.StrategyOptimistic, scenariofile.StrategyPlain:
		return true
	}
	return false
}

// counterTable is a table of the counters workload: (id bigserial primary
// key, project_id bigint, index bigint, title text), its rows numbered in
// index per project_id (the scope) by strategy. Before the runs it holds
// rowsPerScope rows in each of the scopes 1..scopes, numbered
// 1..rowsPerScope (plain: by its bigserial).
type counterTable struct {
	// name is the table's name in the app schema, and its counter's.
	name         string
	strategy     string
	scopes       int
	rowsPerScope int
}

// numbered reports whether the table's numbers are gapless per scope (and
// checked to be).
func (t counterTable) numbered() bool { return t.strategy != scenariofile.StrategyPlain }

// counterCase is how a case (or a declared scenario) runs.
type counterCase struct {
	name  CounterCase
	desc  string
	table string
	// clients insert concurrently, each insert its own transaction.
	clients int
	// scopes are chosen at random from 1..scopes for each insert, or with
	// dedicated, client i always inserts into scope i+1.
	scopes    int
	dedicated bool
	// conns, when set, is the number of connections the clients share (an
	// application pool); otherwise each client has its own.
	conns int
	// rounds is the number of measured rounds, duration how long each run
	// inserts (the warm-up run a quarter of it).
	rounds   int
	duration time.Duration
}

// connections is the number of connections the case's clients use.
func (c counterCase) connections() int {
	if c.conns > 0 {
		return min(c.conns, c.clients)
	}
	return c.clients
}

// counterRunner is the counters workload's engine: it creates the tables
// (setup), runs the cases on them (run, runRounds), checking after every
// run that the numbering stayed gapless, and drops its schemas (close).
type counterRunner struct {
	admin, clients *pgxpool.Pool
	// schema is pgseq's schema, app the tables'.
	schema, app string
	tables      map[string]counterTable
	// firstID is, per table, the first id the runs insert: rows from it on
	// are deleted after every run, so every run starts from the same rows.
	firstID map[string]int64
	// issued is, per numbered table and scope, the last number issued: a
	// run's numbers must continue from it without a gap. The rows a run
	// inserted are deleted after it; MAX-based strategies then issue their
	// numbers again, counter_table never does (issued moves on).
	issued map[string]map[int64]int64
}

// newCounterRunner opens the clients' pool (one connection per client of
// the largest case, plus one) with admin's settings, and names the
// schemas <prefix>_<random> (pgseq) and <prefix>_<random>_app (tables).
// The caller must close it.
func newCounterRunner(ctx context.Context, admin *pgxpool.Pool, schemaPrefix string, cases []counterCase) (*counterRunner, error) {
	conns := 1
	for _, c := range cases {
		conns = max(conns, c.connections())
	}
	cfg := admin.Config()
	cfg.MaxConns = int32(conns + 1)
	cfg.MinConns = 0
	clients, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the clients' pool: %w", err)
	}
	cr := &counterRunner{
		admin: admin, clients: clients, schema: schemaPrefix + "_" + randomHex(4),
		tables: map[string]counterTable{}, firstID: map[string]int64{}, issued: map[string]map[int64]int64{},
	}
	cr.app = cr.schema + "_app"
	return cr, nil
}

// close drops the runner's schemas (even when ctx is cancelled) and closes
// the clients' pool.
func (cr *counterRunner) close(ctx context.Context) {
	drop := context.WithoutCancel(ctx)
	for _, s := range []string{cr.app, cr.schema} {
		_, _ = cr.admin.Exec(drop, "DROP SCHEMA IF EXISTS "+pgx.Identifier{s}.Sanitize()+" CASCADE")
	}
	cr.clients.Close()
}

func (cr *counterRunner) table(name string) string { return pgx.Identifier{cr.app, name}.Sanitize() }

// scopeNumberConstraint names an optimistic table's UNIQUE (project_id,
// index) constraint: the one violation its clients retry.
func scopeNumberConstraint(table string) string { return table + "_scope_number" }

// setup creates the tables, preloads them, and applies the counters of the
// counter_table and advisory_lock ones through pgseq's planner and applier
// (which backfills the counter rows and creates the unique indexes).
func (cr *counterRunner) setup(ctx context.Context, tables []counterTable) error {
	exec := func(sql string, args ...any) error {
		if _, err := cr.admin.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%.60s…: %w", sql, err)
		}
		return nil
	}
	if err := exec("CREATE SCHEMA " + pgx.Identifier{cr.app}.Sanitize()); err != nil {
		return err
	}
	var counters []catalog.Counter
	for _, t := range tables {
		if _, dup := cr.tables[t.name]; dup {
			return fmt.Errorf("table %s is declared twice", t.name)
		}
		cr.tables[t.name] = t
		var ddl, preload string
		switch t.strategy {
		case scenariofile.StrategyPlain:
			ddl = `(id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigserial NOT NULL, title text, UNIQUE (project_id, index))`
			preload = `INSERT INTO ` + cr.table(t.name) + ` (project_id, title)
				SELECT s, 'seed' FROM generate_series(1, $1::int) s, generate_series(1, $2::int) i`
		case scenariofile.StrategyOptimistic:
			ddl = `(id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint NOT NULL, title text, CONSTRAINT ` +
				pgx.Identifier{scopeNumberConstraint(t.name)}.Sanitize() + ` UNIQUE (project_id, index))`
		case scenariofile.StrategyCounterTable, scenariofile.StrategyAdvisoryLock:
			ddl = `(id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint, title text)`
			counters = append(counters, catalog.Counter{
				Name: t.name, Table: cr.app + "." + t.name, Column: "index", Scope: []string{"project_id"},
				Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: t.strategy,
			})
		default:
			return fmt.Errorf("table %s: unknown strategy %q", t.name, t.strategy)
		}
		if preload == "" {
			preload = `INSERT INTO ` + cr.table(t.name) + ` (project_id, index, title)
				SELECT s, i, 'seed' FROM generate_series(1, $1::int) s, generate_series(1, $2::int) i`
		}
		if err := exec(`CREATE TABLE ` + cr.table(t.name) + ` ` + ddl); err != nil {
			return err
		}
		if t.scopes > 0 && t.rowsPerScope > 0 {
			if err := exec(preload, t.scopes, t.rowsPerScope); err != nil {
				return err
			}
		}
		if t.numbered() {
			cr.issued[t.name] = map[int64]int64{}
			for s := 1; s <= t.scopes && t.rowsPerScope > 0; s++ {
				cr.issued[t.name][int64(s)] = int64(t.rowsPerScope)
			}
		}
	}
	state := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}, Counters: counters}
	if err := applyConfig(ctx, cr.admin, cr.schema, state); err != nil {
		return err
	}
	for _, t := range tables {
		// Runs vacuum their table themselves; autovacuum would only add
		// noise to whichever run it overlaps.
		if err := exec("ALTER TABLE " + cr.table(t.name) + " SET (autovacuum_enabled = off)"); err != nil {
			return err
		}
		if err := exec("VACUUM ANALYZE " + cr.table(t.name)); err != nil {
			return err
		}
		var next int64
		if err := cr.admin.QueryRow(ctx, `SELECT coalesce(max(id), 0) + 1 FROM `+cr.table(t.name)).Scan(&next); err != nil {
			return err
		}
		cr.firstID[t.name] = next
	}
	return nil
}

// runRounds runs an unreported warm-up run of every case (a quarter of its
// duration), then round after round every case that has rounds left, the
// order reversed every other round. It returns the measured runs in the
// order they ran.
func (cr *counterRunner) runRounds(ctx context.Context, cases []counterCase, progress func(CounterProgress)) ([]CounterRun, error) {
	progress(CounterProgress{Step: "warm-up"})
	rounds := 0
	for _, c := range cases {
		if _, err := cr.run(ctx, c, 0, c.duration/4); err != nil {
			return nil, fmt.Errorf("warm-up, %s: %w", c.name, err)
		}
		rounds = max(rounds, c.rounds)
	}
	var runs []CounterRun
	for round := 1; round <= rounds; round++ {
		order := slices.Clone(cases)
		if round%2 == 0 {
			slices.Reverse(order)
		}
		for _, c := range order {
			if round > c.rounds {
				continue
			}
			r, err := cr.run(ctx, c, round, c.duration)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, c.name, err)
			}
			runs = append(runs, r)
			progress(CounterProgress{Step: fmt.Sprintf("round %d/%d", round, rounds), Run: &r})
		}
	}
	return runs, nil
}

// run inserts from c.clients clients for d and returns the measurement;
// then it checks the numbers the run issued, deletes the rows it inserted
// and vacuums the table.
func (cr *counterRunner) run(ctx context.Context, c counterCase, round int, d time.Duration) (CounterRun, error) {
	r := CounterRun{Round: round, Case: c.name}
	t, ok := cr.tables[c.table]
	if !ok {
		return r, fmt.Errorf("case %s: no table %s", c.name, c.table)
	}
	// Start every run from a checkpoint, so one run does not pay for the
	// previous one's dirty pages. Needs superuser or pg_checkpoint; without,
	// runs just vary more.
	_, _ = cr.admin.Exec(ctx, "CHECKPOINT")
	insert := `INSERT INTO ` + cr.table(t.name) + ` (project_id, title) VALUES ($1, 'bench')`
	retryOn := ""
	if t.strategy == scenariofile.StrategyOptimistic {
		insert = `INSERT INTO ` + cr.table(t.name) + ` (project_id, index, title)
			SELECT $1, coalesce(max(index), 0) + 1, 'bench' FROM ` + cr.table(t.name) + ` WHERE project_id = $1`
		retryOn = scopeNumberConstraint(t.name)
	}
	// Open the connections first: the clock measures inserts only.
	conns := make([]*pgxpool.Conn, c.connections())
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
	free := make(chan *pgxpool.Conn, len(conns))
	for _, conn := range conns {
		free <- conn
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		latencies []time.Duration
		retries   int
		errs      []error
		start     = make(chan struct{})
	)
	for i := 0; i < c.clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := make([]time.Duration, 0, 4096)
			ownRetries := 0
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
				var n int
				n, err = insertRow(ctx, conn, insert, scope, retryOn)
				free <- conn
				ownRetries += n
				if err != nil {
					break
				}
				own = append(own, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, own...)
			retries += ownRetries
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
	r.Retries = retries
	r.Seconds = elapsed.Seconds()
	r.InsertsPerSec = float64(r.Inserts) / r.Seconds
	r.Latency = stats.NewLatency(latencies)
	r.latencies = latencies

	if err := cr.verifyRun(ctx, t, r.Inserts); err != nil {
		return r, err
	}
	if _, err := cr.admin.Exec(ctx, `DELETE FROM `+cr.table(t.name)+` WHERE id >= $1`, cr.firstID[t.name]); err != nil {
		return r, fmt.Errorf("deleting the run's rows: %w", err)
	}
	if _, err := cr.admin.Exec(ctx, `VACUUM `+cr.table(t.name)); err != nil {
		return r, fmt.Errorf("vacuuming: %w", err)
	}
	return r, nil
}

// sqlstateUniqueViolation is PostgreSQL's unique_violation.
const sqlstateUniqueViolation = "23505"

// insertRow runs one insert into scope on conn. With retryOn set, a unique
// violation of that constraint (another client took the number first) is
// retried until the insert commits; retries counts them.
func insertRow(ctx context.Context, conn *pgxpool.Conn, insert string, scope int, retryOn string) (retries int, err error) {
	for {
		_, err := conn.Exec(ctx, insert, scope)
		var pgErr *pgconn.PgError
		if err == nil || retryOn == "" || !errors.As(err, &pgErr) ||
			pgErr.Code != sqlstateUniqueViolation || pgErr.ConstraintName != retryOn {
			return retries, err
		}
		retries++
	}
}

// scopeNumbers is what a table's rows hold in one scope.
type scopeNumbers struct {
	scope, rows, distinct, low, high int64
}

// numbersByScope summarises, per scope, the numbers of the table's rows
// with an id of at least fromID.
func (cr *counterRunner) numbersByScope(ctx context.Context, table string, fromID int64) ([]scopeNumbers, error) {
	rows, err := cr.admin.Query(ctx, `
		SELECT project_id, count(*), count(DISTINCT index), coalesce(min(index), 0), coalesce(max(index), 0)
		FROM `+cr.table(table)+` WHERE id >= $1 GROUP BY project_id ORDER BY project_id`, fromID)
	if err != nil {
		return nil, fmt.Errorf("reading the numbers of %s: %w", table, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (scopeNumbers, error) {
		var s scopeNumbers
		err := row.Scan(&s.scope, &s.rows, &s.distinct, &s.low, &s.high)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the numbers of %s: %w", table, err)
	}
	return out, nil
}

// verifyRun checks the rows a run inserted: as many as its clients
// committed and, in a numbered table, per scope exactly the numbers
// last+1 … last+n after the scope's last number issued (so that, with the
// preloaded 1..rowsPerScope, every scope's numbers are exactly 1..n).
func (cr *counterRunner) verifyRun(ctx context.Context, t counterTable, inserts int) error {
	scopes, err := cr.numbersByScope(ctx, t.name, cr.firstID[t.name])
	if err != nil {
		return err
	}
	var total int64
	var bad []string
	for _, s := range scopes {
		total += s.rows
		if !t.numbered() {
			continue
		}
		last := cr.issued[t.name][s.scope]
		if s.distinct != s.rows || s.low != last+1 || s.high != last+s.rows {
			bad = append(bad, fmt.Sprintf("scope %d: %d rows numbered %d–%d with %d distinct numbers, where gapless numbering gives %d–%d",
				s.scope, s.rows, s.low, s.high, s.distinct, last+1, last+s.rows))
		}
		if t.strategy == scenariofile.StrategyCounterTable {
			cr.issued[t.name][s.scope] = s.high
		}
	}
	if total != int64(inserts) {
		bad = append(bad, fmt.Sprintf("the table holds %d rows from the run, its clients committed %d", total, inserts))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s (%s) is not numbered gaplessly: %s", t.name, t.strategy, strings.Join(bad, "; "))
	}
	return nil
}

// verifyTables checks every table after the last run: each numbered
// table's scopes hold exactly their preloaded rows numbered
// 1..rowsPerScope, and a counter_table counter's value in every scope is
// the last number issued there.
func (cr *counterRunner) verifyTables(ctx context.Context) error {
	names := slices.Sorted(maps.Keys(cr.tables))
	var errs []error
	for _, name := range names {
		t := cr.tables[name]
		scopes, err := cr.numbersByScope(ctx, name, 0)
		if err != nil {
			return err
		}
		var bad []string
		var total int64
		for _, s := range scopes {
			total += s.rows
			if !t.numbered() {
				continue
			}
			want := int64(t.rowsPerScope)
			if s.scope < 1 || s.scope > int64(t.scopes) {
				want = 0
			}
			if s.rows != want || s.distinct != s.rows || s.low != 1 || s.high != s.rows {
				bad = append(bad, fmt.Sprintf("scope %d: %d rows numbered %d–%d with %d distinct numbers, where the preload was 1–%d",
					s.scope, s.rows, s.low, s.high, s.distinct, want))
			}
		}
		if want := int64(t.scopes) * int64(t.rowsPerScope); total != want {
			bad = append(bad, fmt.Sprintf("%d rows left, %d preloaded", total, want))
		}
		if t.strategy == scenariofile.StrategyCounterTable {
			values, err := cr.counterValues(ctx, name)
			if err != nil {
				return err
			}
			for _, scope := range slices.Sorted(maps.Keys(mapsUnion(values, cr.issued[name]))) {
				if values[scope] != cr.issued[name][scope] {
					bad = append(bad, fmt.Sprintf("scope %d: the counter is at %d, the last number issued was %d",
						scope, values[scope], cr.issued[name][scope]))
				}
			}
		}
		if len(bad) > 0 {
			errs = append(errs, fmt.Errorf("after the runs, %s (%s): %s", name, t.strategy, strings.Join(bad, "; ")))
		}
	}
	return errors.Join(errs...)
}

// counterValues reads a counter_table counter's value per scope.
func (cr *counterRunner) counterValues(ctx context.Context, counter string) (map[int64]int64, error) {
	rows, err := cr.admin.Query(ctx, `SELECT scope::bigint, value FROM `+pgx.Identifier{cr.schema, "counter_values"}.Sanitize()+
		` WHERE counter = $1`, counter)
	if err != nil {
		return nil, fmt.Errorf("reading counter %s: %w", counter, err)
	}
	out := map[int64]int64{}
	var scope, value int64
	_, err = pgx.ForEachRow(rows, []any{&scope, &value}, func() error {
		out[scope] = value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading counter %s: %w", counter, err)
	}
	return out, nil
}

// mapsUnion returns a map with the keys of a and b (values of neither).
func mapsUnion(a, b map[int64]int64) map[int64]struct{} {
	out := make(map[int64]struct{}, len(a)+len(b))
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
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

// countersSettings are a report's settings: the run's rounds and
// duration, and the scopes and rows of the cases the report's notes speak
// of (0 for a case the file does not declare).
func countersSettings(rounds int, d time.Duration, tables []counterTable, cases []counterCase) CountersSettings {
	find := func(name CounterCase) (counterCase, counterTable) {
		for _, c := range cases {
			if c.name == name {
				for _, t := range tables {
					if t.name == c.table {
						return c, t
					}
				}
				return c, counterTable{}
			}
		}
		return counterCase{}, counterTable{}
	}
	plain, _ := find(CasePlain)
	small, smallTable := find(CaseTableSmall)
	_, largeTable := find(CaseTableLarge)
	_, hotTable := find(CaseHot8)
	return CountersSettings{
		Rounds: rounds, RunSeconds: d.Seconds(), ManyScopes: plain.scopes, SizeScopes: small.scopes,
		SmallRowsPerScope: smallTable.rowsPerScope, LargeRowsPerScope: largeTable.rowsPerScope, HotScopeRows: hotTable.rowsPerScope,
	}
}

// summarise fills in the report's cases, comparisons and checks from its
// runs of cases.
func (r *CountersReport) summarise(cases []counterCase) {
	byRound := map[CounterCase]map[int]float64{}
	r.Cases = nil
	for _, c := range cases {
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
		s.Median = stats.Median(s.InsertsPerSec)
		s.Latency = stats.NewLatency(lat)
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
		c := CounterComparison{Name: cmp.name, Numerator: cmp.num, Denominator: cmp.den, Ratio: stats.NewRatio(ratios), Target: cmp.target}
		r.Comparisons = append(r.Comparisons, c)
		if cmp.target > 0 && c.Ratio.N > 0 {
			r.Checks = append(r.Checks, ratioCheck(cmp.name, fmt.Sprintf("ratio ≥ %.2f", cmp.target), &c.Ratio, cmp.target))
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
