package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"gonum.org/v1/gonum/stat"
)

// Defaults of a counters scenario's Size.
const (
	defaultCounterClients  = 8
	defaultCounterDuration = time.Second
	defaultCounterRounds   = 6
)

// RunCounterScenarios runs counters scenarios interleaved: every round runs
// each scenario once (order reversed every other round), after one
// unreported warm-up run of each (a quarter of its duration).
//
// Each scenario inserts into a table of its own, in the app schema
// <schemaPrefix>_<random>_app (pgseq's schema, holding the attached
// counters, is <schemaPrefix>_<random>; both are dropped at the end), with
// (id bigserial primary key, project_id bigint, index bigint, title text):
// rows numbered in index per project_id (the scope) by its
// CounterSpec.Strategy (StrategyCounterTable, StrategyAdvisoryLock,
// StrategyOptimistic, StrategyPlain). Before the rounds each of the
// scopes 1..Scopes holds RowsPerScope rows numbered 1..RowsPerScope (with
// none, a MAX-based strategy's max() may be planned on an empty table, as
// a sequential scan, and stay so on a connection). Every insert is its own
// durable transaction.
//
// Scopes (default 1: one hot scope): when Scopes equals Size.Clients, the
// scopes are dedicated, client i always inserting into scope i+1 (no two
// clients ever meet on a scope); otherwise every insert picks a scope at
// random, uniformly from 1..Scopes.
//
// sizes holds the size each scenario runs at, by name (the caller merges
// Quick under --quick); a scenario missing from it runs at its Size. Zero
// fields take the defaults: 8 clients, 1s per run, and the rounds of the
// scenario it is against (so that both run in the same rounds), else 6.
// Scenarios with fewer rounds sit out the last rounds of the others.
//
// Every run starts from a CHECKPOINT; after it, its rows are checked
// (every committed insert present and, except plain, each scope's numbers
// continuing gaplessly from the last issued: together with the preload,
// exactly 1..n), then deleted and the table vacuumed, so every run starts
// from the same rows. After the last run, every table must hold exactly
// its preload and every counter_table counter the last number issued. A
// failed check fails the run.
//
// The result has one ScenarioResult per scenario, in the order of scs, its
// Runs a []CounterRun and its Metrics the counters workload's (Metrics):
// throughput, throughput_ratio (with Against: per round, to Against's
// throughput of the same round), insert_p50 and insert_p99. Thresholds are
// left to the caller.
func RunCounterScenarios(ctx context.Context, pool *pgxpool.Pool, scs []Scenario, sizes map[string]Size, schemaPrefix string, progress func(CounterProgress)) ([]ScenarioResult, error) {
	if pool == nil {
		return nil, errors.New("RunCounterScenarios: no database pool")
	}
	if schemaPrefix == "" {
		schemaPrefix = "pgseq_bench"
	}
	if progress == nil {
		progress = func(CounterProgress) {}
	}
	tables, cases, effective, err := counterScenarioCases(scs, sizes)
	if err != nil {
		return nil, err
	}
	cr, err := newCounterRunner(ctx, pool, schemaPrefix, cases)
	if err != nil {
		return nil, err
	}
	defer cr.close(ctx)
	progress(CounterProgress{Step: "creating and preloading tables"})
	if err := cr.setup(ctx, tables); err != nil {
		return nil, fmt.Errorf("setting up the counters scenarios: %w", err)
	}
	runs, err := cr.runRounds(ctx, cases, progress)
	if err != nil {
		return nil, err
	}
	if err := cr.verifyTables(ctx); err != nil {
		return nil, err
	}
	return counterScenarioResults(scs, effective, runs), nil
}

// counterScenarioCases checks the scenarios and returns their tables and
// cases (one each, in order) and their effective sizes.
func counterScenarioCases(scs []Scenario, sizes map[string]Size) ([]counterTable, []counterCase, []Size, error) {
	var errs []error
	bad := func(sc Scenario, format string, args ...any) {
		errs = append(errs, fmt.Errorf("counters scenario %q: %s", sc.Name, fmt.Sprintf(format, args...)))
	}
	names := map[string]bool{}
	declared := map[string]Size{}
	against := map[string]string{}
	for _, sc := range scs {
		if names[sc.Name] {
			bad(sc, "declared twice")
		}
		names[sc.Name] = true
		declared[sc.Name] = sc.Size
		if s, ok := sizes[sc.Name]; ok {
			declared[sc.Name] = s
		}
		against[sc.Name] = sc.Against
	}
	// rounds follows a scenario without rounds to the one it is against
	// (at most len(scs) steps, should they go round in a circle).
	rounds := func(name string) int {
		for range scs {
			if r := declared[name].Rounds; r != 0 {
				return r
			}
			if name = against[name]; name == "" {
				break
			}
		}
		return defaultCounterRounds
	}
	var (
		tables []counterTable
		cases  []counterCase
		eff    []Size
	)
	for i, sc := range scs {
		if sc.Workload != WorkloadCounters {
			bad(sc, "workload is %q, not %q", sc.Workload, WorkloadCounters)
		}
		if sc.Against != "" && (sc.Against == sc.Name || !names[sc.Against]) {
			bad(sc, "against %q: no other scenario of the run has that name", sc.Against)
		}
		spec := sc.Counter
		if !knownCounterStrategy(spec.Strategy) {
			bad(sc, "strategy %q: want %s, %s, %s or %s", spec.Strategy,
				StrategyCounterTable, StrategyAdvisoryLock, StrategyOptimistic, StrategyPlain)
		}
		if spec.Scopes < 0 || spec.RowsPerScope < 0 {
			bad(sc, "scopes and rows per scope must not be negative")
		}
		size := declared[sc.Name]
		if size.Clients < 0 || size.Rounds < 0 || size.Duration < 0 {
			bad(sc, "clients, rounds and duration must not be negative")
		}
		size = Size{Rounds: rounds(sc.Name), Clients: defaultCounterClients, Duration: defaultCounterDuration}.
			Merge(Size{Clients: size.Clients, Duration: size.Duration})
		scopes := max(spec.Scopes, 1)
		t := counterTable{name: counterTableName(i, sc.Name), strategy: spec.Strategy, scopes: scopes, rowsPerScope: spec.RowsPerScope}
		tables = append(tables, t)
		cases = append(cases, counterCase{
			name: CounterCase(sc.Name), desc: sc.Description, table: t.name,
			clients: size.Clients, scopes: scopes, dedicated: scopes == size.Clients,
			rounds: size.Rounds, duration: size.Duration,
		})
		eff = append(eff, size)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, err
	}
	return tables, cases, eff, nil
}

// counterTableName names scenario i's table: s<i+1>_ and its name in
// lowercase letters, digits and underscores, at most 40 bytes in all (its
// counter's and constraint's names derive from it).
func counterTableName(i int, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "s%d_", i+1)
	for _, r := range strings.ToLower(name) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// counterScenarioResults summarises the runs of each scenario, run at
// sizes[i].
func counterScenarioResults(scs []Scenario, sizes []Size, runs []CounterRun) []ScenarioResult {
	byName := map[CounterCase][]CounterRun{}
	for _, r := range runs {
		byName[r.Case] = append(byName[r.Case], r)
	}
	for _, rs := range byName {
		slices.SortStableFunc(rs, func(a, b CounterRun) int { return a.Round - b.Round })
	}
	out := make([]ScenarioResult, 0, len(scs))
	for i, sc := range scs {
		own := byName[CounterCase(sc.Name)]
		res := ScenarioResult{
			Name: sc.Name, Description: sc.Description, Workload: WorkloadCounters, Against: sc.Against,
			File: sc.DeclRange.Filename, Size: sizes[i], Runs: own,
		}
		throughput := make([]float64, len(own))
		latencies := make([][]time.Duration, len(own))
		for j, r := range own {
			throughput[j] = r.InsertsPerSec
			latencies[j] = r.latencies
		}
		res.Metrics = append(res.Metrics, perRoundMetric(WorkloadCounters, "throughput", throughput))
		if sc.Against != "" {
			base := map[int]float64{}
			for _, r := range byName[CounterCase(sc.Against)] {
				base[r.Round] = r.InsertsPerSec
			}
			var ratios []float64
			for _, r := range own {
				if d, ok := base[r.Round]; ok && d > 0 {
					ratios = append(ratios, r.InsertsPerSec/d)
				}
			}
			res.Metrics = append(res.Metrics, perRoundMetric(WorkloadCounters, "throughput_ratio", ratios))
		}
		res.Metrics = append(res.Metrics,
			latencyMetric(WorkloadCounters, "insert_p50", 0.50, latencies),
			latencyMetric(WorkloadCounters, "insert_p99", 0.99, latencies))
		out = append(out, res)
	}
	return out
}

// newMetricResult returns an empty result of the workload's metric name,
// with its unit and direction. The name must be one of Metrics.
func newMetricResult(w Workload, name string) MetricResult {
	m, ok := LookupMetric(w, name)
	if !ok {
		panic(fmt.Sprintf("scenarios: no metric %q for workload %s", name, w))
	}
	return MetricResult{Name: m.Name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter}
}

// perRoundMetric is a per-round metric with one sample per round, in round
// order: its value is their median, with (from 2 rounds) the
// distribution-free interval of the median ratioStats computes.
func perRoundMetric(w Workload, name string, samples []float64) MetricResult {
	m := newMetricResult(w, name)
	m.Samples = slices.Clone(samples)
	if m.Samples == nil {
		m.Samples = []float64{}
	}
	m.N = len(samples)
	if m.N == 0 {
		return m
	}
	x := ratioStats(samples)
	m.Value = x.Median
	if m.N >= 2 {
		m.Low, m.High, m.Level = x.Low, x.High, x.Level
	}
	return m
}

// latencyMetric is the q-quantile (0.5: p50) of latencies, in seconds, for
// rounds of latency samples in round order: Samples are each round's
// quantile (rounds without samples are left out), Value the quantile of
// all rounds pooled, N the pooled count and Histogram their distribution.
// Quantiles are empirical, as in Latency.
func latencyMetric(w Workload, name string, q float64, rounds [][]time.Duration) MetricResult {
	m := newMetricResult(w, name)
	m.Samples = []float64{}
	var pooled []time.Duration
	for _, r := range rounds {
		if len(r) == 0 {
			continue
		}
		m.Samples = append(m.Samples, stat.Quantile(q, stat.Empirical, sortedSeconds(r), nil))
		pooled = append(pooled, r...)
	}
	m.N = len(pooled)
	if m.N == 0 {
		return m
	}
	m.Value = stat.Quantile(q, stat.Empirical, sortedSeconds(pooled), nil)
	m.Histogram = latencyHistogram(pooled)
	return m
}

// sortedSeconds returns d in seconds, sorted.
func sortedSeconds(d []time.Duration) []float64 {
	xs := make([]float64, len(d))
	for i, v := range d {
		xs[i] = v.Seconds()
	}
	slices.Sort(xs)
	return xs
}

// latencyHistogramBuckets is how many buckets latencyHistogram makes.
const latencyHistogramBuckets = 20

// latencyHistogram counts latencies, in seconds, in 20 buckets spaced
// evenly on a log scale from the smallest to the largest (whose bound is
// the largest exactly); with all samples equal (or one not positive), in
// one bucket bounded by the largest. Nil for no samples.
func latencyHistogram(d []time.Duration) *Histogram {
	if len(d) == 0 {
		return nil
	}
	xs := sortedSeconds(d)
	lo, hi := xs[0], xs[len(xs)-1]
	if lo <= 0 || lo == hi {
		return &Histogram{Bounds: []float64{hi}, Counts: []int{len(xs)}}
	}
	h := &Histogram{Bounds: make([]float64, latencyHistogramBuckets), Counts: make([]int, latencyHistogramBuckets)}
	step := math.Log(hi/lo) / latencyHistogramBuckets
	for i := range h.Bounds {
		h.Bounds[i] = lo * math.Exp(step*float64(i+1))
	}
	h.Bounds[len(h.Bounds)-1] = hi
	b := 0
	for _, x := range xs {
		for x > h.Bounds[b] && b < len(h.Bounds)-1 {
			b++
		}
		h.Counts[b]++
	}
	return h
}
