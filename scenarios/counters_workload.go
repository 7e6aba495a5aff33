package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
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
// Each scenario inserts into a table of its own, or into the table it
// names (CounterSpec.Table), shared with every scenario naming it, in the
// app schema <schemaPrefix>_<random>_app (pgseq's schema, holding the
// attached counters, is <schemaPrefix>_<random>; both are dropped at the
// end), with
// (id bigserial primary key, project_id bigint, index bigint, title text):
// rows numbered in index per project_id (the scope) by its
// scenariofile.CounterSpec.Strategy (counter_table, advisory_lock,
// optimistic or plain). Before the rounds each of the scopes 1..Scopes
// holds RowsPerScope rows numbered 1..RowsPerScope (with none, a MAX-based
// strategy's max() may be planned on an empty table, as a sequential scan,
// and stay so on a connection). Every insert is its own durable
// transaction.
//
// Scopes (default 1: one hot scope): when Scopes equals Size.Clients, the
// scopes are dedicated, client i always inserting into scope i+1 (no two
// clients ever meet on a scope); otherwise every insert picks a scope at
// random, uniformly from 1..Scopes. Each client has a connection of its
// own, unless Size.Connections says how many they share: then each insert
// waits for a free one (its latency includes the wait).
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
// The result has one report.ScenarioResult per scenario, in the order of
// scs, its Runs a []CounterRun and its Metrics the counters workload's
// (scenariofile.Metrics): throughput, throughput_ratio (with Against: per
// round, to Against's throughput of the same round), insert_p50 and
// insert_p99. Thresholds are left to the caller.
func RunCounterScenarios(ctx context.Context, pool *pgxpool.Pool, scs []scenariofile.Scenario, sizes map[string]scenariofile.Size, schemaPrefix string, progress func(CounterProgress)) ([]report.ScenarioResult, error) {
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

// counterScenarioCases checks the scenarios and returns their tables (in
// the order of the scenarios that first insert into them), their cases
// (one each, in order) and their effective sizes.
func counterScenarioCases(scs []scenariofile.Scenario, sizes map[string]scenariofile.Size) ([]counterTable, []counterCase, []scenariofile.Size, error) {
	var errs []error
	bad := func(sc scenariofile.Scenario, format string, args ...any) {
		errs = append(errs, fmt.Errorf("counters scenario %q: %s", sc.Name, fmt.Sprintf(format, args...)))
	}
	names := map[string]bool{}
	declared := map[string]scenariofile.Size{}
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
		eff    []scenariofile.Size
		// tableOf is, by table name, the first scenario inserting into it.
		tableOf = map[string]scenariofile.Scenario{}
	)
	for i, sc := range scs {
		if sc.Workload != scenariofile.WorkloadCounters {
			bad(sc, "workload is %q, not %q", sc.Workload, scenariofile.WorkloadCounters)
		}
		if sc.Against != "" && (sc.Against == sc.Name || !names[sc.Against]) {
			bad(sc, "against %q: no other scenario of the run has that name", sc.Against)
		}
		spec := sc.Counter
		if !knownCounterStrategy(spec.Strategy) {
			bad(sc, "strategy %q: want %s, %s, %s or %s", spec.Strategy,
				scenariofile.StrategyCounterTable, scenariofile.StrategyAdvisoryLock, scenariofile.StrategyOptimistic, scenariofile.StrategyPlain)
		}
		if spec.Scopes < 0 || spec.RowsPerScope < 0 {
			bad(sc, "scopes and rows per scope must not be negative")
		}
		size := declared[sc.Name]
		if size.Clients < 0 || size.Connections < 0 || size.Rounds < 0 || size.Duration < 0 {
			bad(sc, "clients, connections, rounds and duration must not be negative")
		}
		size = scenariofile.Size{Rounds: rounds(sc.Name), Clients: defaultCounterClients, Duration: defaultCounterDuration}.
			Merge(scenariofile.Size{Clients: size.Clients, Connections: size.Connections, Duration: size.Duration})
		if size.Connections > size.Clients {
			bad(sc, "%d connections for %d clients: the clients share at most one connection each", size.Connections, size.Clients)
		}
		scopes := max(spec.Scopes, 1)
		t := counterTable{name: spec.Table, strategy: spec.Strategy, scopes: scopes, rowsPerScope: spec.RowsPerScope}
		if t.name == "" {
			t.name = counterTableName(i, sc.Name)
		}
		if first, shared := tableOf[t.name]; !shared {
			tableOf[t.name] = sc
			tables = append(tables, t)
		} else if first.Counter.Table == "" || spec.Table == "" {
			bad(sc, "table %s: scenario %q inserts into a table of that name too; name another table", t.name, first.Name)
		} else if first.Counter.Strategy != spec.Strategy || max(first.Counter.Scopes, 1) != scopes || first.Counter.RowsPerScope != spec.RowsPerScope {
			bad(sc, "table %s is shared with scenario %q, which declares another strategy, scopes or rows per scope", t.name, first.Name)
		}
		cases = append(cases, counterCase{
			name: CounterCase(sc.Name), desc: sc.Description, table: t.name,
			clients: size.Clients, scopes: scopes, dedicated: scopes == size.Clients, conns: size.Connections,
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
func counterScenarioResults(scs []scenariofile.Scenario, sizes []scenariofile.Size, runs []CounterRun) []report.ScenarioResult {
	byName := map[CounterCase][]CounterRun{}
	for _, r := range runs {
		byName[r.Case] = append(byName[r.Case], r)
	}
	for _, rs := range byName {
		slices.SortStableFunc(rs, func(a, b CounterRun) int { return a.Round - b.Round })
	}
	out := make([]report.ScenarioResult, 0, len(scs))
	for i, sc := range scs {
		own := byName[CounterCase(sc.Name)]
		res := report.ScenarioResult{
			Name: sc.Name, Description: sc.Description, Workload: scenariofile.WorkloadCounters, Against: sc.Against,
			File: sc.DeclRange.Filename, Size: sizes[i], Runs: own,
		}
		throughput := make([]float64, len(own))
		latencies := make([][]time.Duration, len(own))
		for j, r := range own {
			throughput[j] = r.InsertsPerSec
			latencies[j] = r.latencies
		}
		res.Metrics = append(res.Metrics, report.PerRoundMetric(scenariofile.WorkloadCounters, "throughput", throughput))
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
			res.Metrics = append(res.Metrics, report.PerRoundMetric(scenariofile.WorkloadCounters, "throughput_ratio", ratios))
		}
		res.Metrics = append(res.Metrics,
			report.LatencyMetric(scenariofile.WorkloadCounters, "insert_p50", 0.50, latencies),
			report.LatencyMetric(scenariofile.WorkloadCounters, "insert_p99", 0.99, latencies))
		out = append(out, res)
	}
	return out
}
