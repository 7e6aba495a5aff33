package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// TestCountersSummary: per-round ratios pair the cases of the same round,
// targets become checks, and both renderings carry them.
func TestCountersSummary(t *testing.T) {
	rep := &CountersReport{Settings: CountersSettings{Rounds: 3, SmallRowsPerScope: 1000, LargeRowsPerScope: 100000, HotScopeRows: 10000},
		Environment: report.Environment{NumCPU: 2}}
	speed := map[CounterCase]float64{
		CasePlain: 1000, CaseAttached: 800, CaseHot1: 500, CaseHot8: 400, CaseHot64: 200, CaseHot64Pool8: 390,
		CaseHotLock8: 400, CaseHotLock64: 380,
		CaseTableSmall: 700, CaseLockSmall: 700, CaseTableLarge: 700, CaseLockLarge: 700,
	}
	_, cases, err := countersFileCases(3, time.Second)
	require.NoError(t, err)
	for round := 1; round <= 3; round++ {
		for _, c := range cases {
			x := speed[c.name] * float64(round) // every case faster each round: ratios stay put
			rep.Runs = append(rep.Runs, CounterRun{
				Round: round, Case: c.name, InsertsPerSec: x, Inserts: int(x), Seconds: 1,
				Waits:     map[string]int{"Lock:advisory": 3, "idle": 1},
				latencies: []time.Duration{time.Millisecond, 2 * time.Millisecond},
			})
		}
	}
	rep.summarise(cases)
	require.Len(t, rep.Cases, len(cases))
	require.InDelta(t, 0.8, rep.comparison(CaseAttached, CasePlain).Ratio.Median, 1e-9)
	require.InDelta(t, 0.5, rep.comparison(CaseHot64, CaseHot8).Ratio.Median, 1e-9)
	require.InDelta(t, 1, rep.comparison(CaseLockLarge, CaseLockSmall).Ratio.GeoMean, 1e-9)
	require.Equal(t, []Check{
		{Name: "attached counter vs plain bigserial (8 clients, 1,000 scopes)", Target: "ratio ≥ 0.70", Measured: "0.800 median, CI 0.800–0.800 (75.0%)", Status: report.StatusMet, Met: true},
		{Name: "hot scope: 64 clients vs 8", Target: "ratio ≥ 0.80", Measured: "0.500 median, CI 0.500–0.500 (75.0%)", Status: report.StatusMissed, Met: false},
	}, rep.Checks)
	require.InDelta(t, 0.75, rep.caseSummary(CaseHot64).Waits["Lock:advisory"], 1e-9)

	var md, js bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	require.NoError(t, rep.WriteJSON(&js))
	for _, want := range []string{"## What limits one hot scope", "## Does advisory_lock degrade", "≥ 0.80: MISSED", "`Lock:advisory` 75%"} {
		require.True(t, strings.Contains(md.String(), want), "markdown lacks %q", want)
	}
	require.Contains(t, md.String(), "queues a scope's waiters first-come first-served")
	require.Contains(t, md.String(), "64 clients sharing 8 connections, 780 inserts/s at p50 latency 1.00 ms; vs 8 clients: 0.97")

	// Waiters on the row itself get the other explanation.
	rep.caseSummary(CaseHot64).Waits = map[string]float64{"Lock:tuple": 0.6, "Lock:transactionid": 0.4}
	md.Reset()
	require.NoError(t, rep.WriteMarkdown(&md))
	require.Contains(t, md.String(), "each commit wakes all the waiters")

	var back CountersReport
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, rep.Comparisons, back.Comparisons)
}

// TestCountersFileCases: the cases of bench counters, read from the shipped
// bench-counters/counters.hcl, are those it has always run (the list that
// was Go code before): names, descriptions, clients, scopes, connections,
// tables (the hot-scope cases sharing one per strategy) and their preload,
// in run order, and the report's settings.
func TestCountersFileCases(t *testing.T) {
	t.Parallel()
	tables, cases, err := countersFileCases(6, time.Second)
	require.NoError(t, err)
	require.Equal(t, []counterTable{
		{"s1_plain", scenariofile.StrategyPlain, 1000, 0},
		{"s2_attached", scenariofile.StrategyCounterTable, 1000, 0},
		{"hot", scenariofile.StrategyCounterTable, 1, 10_000},
		{"hot_adv", scenariofile.StrategyAdvisoryLock, 1, 10_000},
		{"s9_counter_table_1k", scenariofile.StrategyCounterTable, 8, 1000},
		{"s10_advisory_lock_1k", scenariofile.StrategyAdvisoryLock, 8, 1000},
		{"s11_counter_table_100k", scenariofile.StrategyCounterTable, 8, 100_000},
		{"s12_advisory_lock_100k", scenariofile.StrategyAdvisoryLock, 8, 100_000},
	}, tables)
	run := func(c counterCase) counterCase {
		c.rounds, c.duration = 6, time.Second
		return c
	}
	require.Equal(t, []counterCase{
		run(counterCase{name: CasePlain, desc: "plain bigserial numbering, 8 clients, 1,000 scopes", table: "s1_plain", clients: 8, scopes: 1000}),
		run(counterCase{name: CaseAttached, desc: "attached counter (counter_table), 8 clients, 1,000 scopes", table: "s2_attached", clients: 8, scopes: 1000}),
		// One client on one scope inserts into scope 1 either way.
		run(counterCase{name: CaseHot1, desc: "attached counter_table, one hot scope, 1 client", table: "hot", clients: 1, scopes: 1, dedicated: true}),
		run(counterCase{name: CaseHot8, desc: "attached counter_table, one hot scope, 8 clients", table: "hot", clients: 8, scopes: 1}),
		run(counterCase{name: CaseHot64, desc: "attached counter_table, one hot scope, 64 clients", table: "hot", clients: 64, scopes: 1}),
		run(counterCase{name: CaseHot64Pool8, desc: "attached counter_table, one hot scope, 64 clients sharing 8 connections", table: "hot", clients: 64, scopes: 1, conns: 8}),
		run(counterCase{name: CaseHotLock8, desc: "attached advisory_lock, one hot scope, 8 clients", table: "hot_adv", clients: 8, scopes: 1}),
		run(counterCase{name: CaseHotLock64, desc: "attached advisory_lock, one hot scope, 64 clients", table: "hot_adv", clients: 64, scopes: 1}),
		run(counterCase{name: CaseTableSmall, desc: "counter_table, 1,000 rows per scope, 8 clients on 8 scopes", table: "s9_counter_table_1k", clients: 8, scopes: 8, dedicated: true}),
		run(counterCase{name: CaseLockSmall, desc: "advisory_lock, 1,000 rows per scope, 8 clients on 8 scopes", table: "s10_advisory_lock_1k", clients: 8, scopes: 8, dedicated: true}),
		run(counterCase{name: CaseTableLarge, desc: "counter_table, 100,000 rows per scope, 8 clients on 8 scopes", table: "s11_counter_table_100k", clients: 8, scopes: 8, dedicated: true}),
		run(counterCase{name: CaseLockLarge, desc: "advisory_lock, 100,000 rows per scope, 8 clients on 8 scopes", table: "s12_advisory_lock_100k", clients: 8, scopes: 8, dedicated: true}),
	}, cases)
	names, err := CounterCases()
	require.NoError(t, err)
	require.Equal(t, []CounterCase{CasePlain, CaseAttached, CaseHot1, CaseHot8, CaseHot64, CaseHot64Pool8, CaseHotLock8, CaseHotLock64,
		CaseTableSmall, CaseLockSmall, CaseTableLarge, CaseLockLarge}, names)
	require.Equal(t, CountersSettings{Rounds: 6, RunSeconds: 1, ManyScopes: 1000, SizeScopes: 8, SmallRowsPerScope: 1000,
		LargeRowsPerScope: 100_000, HotScopeRows: 10_000}, countersSettings(6, time.Second, tables, cases))

	// The comparisons, in report order, with their targets.
	type cmp struct {
		name     string
		num, den CounterCase
		target   float64
	}
	var got []cmp
	for _, c := range counterComparisons {
		got = append(got, cmp{c.name, c.num, c.den, c.target})
	}
	require.Equal(t, []cmp{
		{"attached counter vs plain bigserial (8 clients, 1,000 scopes)", CaseAttached, CasePlain, 0.70},
		{"hot scope: 64 clients vs 8", CaseHot64, CaseHot8, 0.80},
		{"hot scope: 64 clients through a pool of 8 connections vs 8 clients", CaseHot64Pool8, CaseHot8, 0},
		{"hot scope: 8 clients vs 1", CaseHot8, CaseHot1, 0},
		{"hot scope, advisory_lock: 64 clients vs 8", CaseHotLock64, CaseHotLock8, 0},
		{"hot scope, 64 clients: advisory_lock vs counter_table", CaseHotLock64, CaseHot64, 0},
		{"advisory_lock vs counter_table at 1,000 rows per scope", CaseLockSmall, CaseTableSmall, 0},
		{"advisory_lock vs counter_table at 100,000 rows per scope", CaseLockLarge, CaseTableLarge, 0},
		{"advisory_lock: 100,000 vs 1,000 rows per scope", CaseLockLarge, CaseLockSmall, 0},
		{"counter_table: 100,000 vs 1,000 rows per scope", CaseTableLarge, CaseTableSmall, 0},
	}, got)
}

// TestParseCountersFile: a cases file for bench counters is a scenario
// file (its diagnostics say where), whose cases leave rounds and duration
// to the flags, compare nothing themselves, and include every case a
// comparison names.
func TestParseCountersFile(t *testing.T) {
	t.Parallel()
	_, err := parseCountersFile("cases.hcl", []byte(`scenario "plain" {
  workload = "counters"
  counter {
    strategy = "plane"
  }
}
`))
	require.ErrorContains(t, err, `reading cases.hcl: cases.hcl:4,16-23: Invalid strategy`)

	_, err = parseCountersFile("cases.hcl", []byte(`scenario "plain" {
  workload = "counters"
  counter {
    strategy = "plain"
  }
}

scenario "attached" {
  workload = "counters"
  size {
    duration = "2s"
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "hot-8" {
  workload = "counters"
  counter {
    strategy = "counter_table"
  }
  threshold "throughput" {
    min = 1000
  }
}
`))
	for _, want := range []string{
		`cases.hcl:8:1: case "attached" sets rounds, duration or a quick block; bench counters takes rounds and duration from its flags`,
		`cases.hcl:18:1: case "hot-8" has against or thresholds; bench counters compares its cases itself`,
		`cases.hcl declares no case "hot-64", which comparison "hot scope: 64 clients vs 8" needs`,
		`cases.hcl declares no case "counter_table-1k", which comparison "advisory_lock vs counter_table at 1,000 rows per scope" needs`,
	} {
		require.ErrorContains(t, err, want)
	}
	require.NotContains(t, err.Error(), `no case "plain"`)
	require.Equal(t, 1, strings.Count(err.Error(), `no case "hot-64"`))
}

// TestCounterScenarioCases: sizes take defaults and overrides (rounds
// those of the scenario it is against), scopes equal
// to clients are dedicated, table names are identifiers, and bad
// declarations are all reported.
func TestCounterScenarioCases(t *testing.T) {
	scs := []scenariofile.Scenario{
		{Name: "plain", Workload: scenariofile.WorkloadCounters, Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain, Scopes: 1000}},
		{Name: "Hot Scope!", Workload: scenariofile.WorkloadCounters, Against: "plain", Size: scenariofile.Size{Clients: 4},
			Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyCounterTable, RowsPerScope: 100}},
		{Name: "dedicated", Workload: scenariofile.WorkloadCounters, Against: "plain",
			Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyOptimistic, Scopes: 2}},
		{Name: "follows", Workload: scenariofile.WorkloadCounters, Against: "dedicated", Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
		{Name: "circle-a", Workload: scenariofile.WorkloadCounters, Against: "circle-b", Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
		{Name: "circle-b", Workload: scenariofile.WorkloadCounters, Against: "circle-a", Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
	}
	sizes := map[string]scenariofile.Size{"dedicated": {Clients: 2, Rounds: 3, Duration: 200 * time.Millisecond}}
	tables, cases, eff, err := counterScenarioCases(scs, sizes)
	require.NoError(t, err)
	require.Equal(t, []counterTable{
		{"s1_plain", scenariofile.StrategyPlain, 1000, 0},
		{"s2_hot_scope_", scenariofile.StrategyCounterTable, 1, 100},
		{"s3_dedicated", scenariofile.StrategyOptimistic, 2, 0},
		{"s4_follows", scenariofile.StrategyPlain, 1, 0},
		{"s5_circle_a", scenariofile.StrategyPlain, 1, 0},
		{"s6_circle_b", scenariofile.StrategyPlain, 1, 0},
	}, tables)
	require.Equal(t, []scenariofile.Size{
		{Rounds: 6, Clients: 8, Duration: time.Second},
		{Rounds: 6, Clients: 4, Duration: time.Second},
		{Rounds: 3, Clients: 2, Duration: 200 * time.Millisecond},
		{Rounds: 3, Clients: 8, Duration: time.Second},
		{Rounds: 6, Clients: 8, Duration: time.Second},
		{Rounds: 6, Clients: 8, Duration: time.Second},
	}, eff)
	require.False(t, cases[0].dedicated)
	require.False(t, cases[1].dedicated, "4 clients on one hot scope")
	require.True(t, cases[2].dedicated, "2 clients, 2 scopes: one each")
	require.Equal(t, 3, cases[2].rounds)
	require.Equal(t, "s1_"+strings.Repeat("x", 37), counterTableName(0, strings.Repeat("x", 80)))

	_, _, _, err = counterScenarioCases([]scenariofile.Scenario{
		{Name: "a", Workload: scenariofile.WorkloadDrain, Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
		{Name: "b", Workload: scenariofile.WorkloadCounters, Against: "nope", Counter: scenariofile.CounterSpec{Strategy: "serial"}},
		{Name: "b", Workload: scenariofile.WorkloadCounters, Size: scenariofile.Size{Clients: -1}, Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain, Scopes: -1}},
	}, nil)
	for _, want := range []string{
		`"a": workload is "drain"`, `"b": declared twice`, `"b": against "nope"`, `"b": strategy "serial"`,
		`"b": scopes and rows per scope`, `"b": clients, connections, rounds and duration`,
	} {
		require.ErrorContains(t, err, want)
	}
}

// TestCounterScenarioSharedTables: scenarios naming a table share it
// (created once, where the first names it) and must declare it alike;
// connections are shared by the clients, never more than one each.
func TestCounterScenarioSharedTables(t *testing.T) {
	t.Parallel()
	hot := scenariofile.CounterSpec{Strategy: scenariofile.StrategyCounterTable, Scopes: 1, RowsPerScope: 100, Table: "hot"}
	scs := []scenariofile.Scenario{
		{Name: "hot-1", Workload: scenariofile.WorkloadCounters, Size: scenariofile.Size{Clients: 1}, Counter: hot},
		{Name: "own", Workload: scenariofile.WorkloadCounters, Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
		{Name: "hot-64-pool-8", Workload: scenariofile.WorkloadCounters, Size: scenariofile.Size{Clients: 64, Connections: 8}, Counter: hot},
	}
	tables, cases, eff, err := counterScenarioCases(scs, nil)
	require.NoError(t, err)
	require.Equal(t, []counterTable{
		{"hot", scenariofile.StrategyCounterTable, 1, 100},
		{"s2_own", scenariofile.StrategyPlain, 1, 0},
	}, tables)
	require.Equal(t, "hot", cases[2].table)
	require.Equal(t, 8, cases[2].connections())
	require.Equal(t, 8, cases[1].connections(), "a connection per client")
	require.Equal(t, scenariofile.Size{Rounds: 6, Clients: 64, Connections: 8, Duration: time.Second}, eff[2])

	other := hot
	other.RowsPerScope = 1000
	taken := hot
	taken.Table = "s1_own"
	_, _, _, err = counterScenarioCases([]scenariofile.Scenario{
		{Name: "own", Workload: scenariofile.WorkloadCounters, Counter: scenariofile.CounterSpec{Strategy: scenariofile.StrategyPlain}},
		{Name: "hot-8", Workload: scenariofile.WorkloadCounters, Counter: hot},
		{Name: "hot-other", Workload: scenariofile.WorkloadCounters, Counter: other},
		{Name: "taken", Workload: scenariofile.WorkloadCounters, Counter: taken},
		{Name: "pool", Workload: scenariofile.WorkloadCounters, Size: scenariofile.Size{Clients: 4, Connections: 8}, Counter: hot},
	}, nil)
	for _, want := range []string{
		`"hot-other": table hot is shared with scenario "hot-8", which declares another strategy, scopes or rows per scope`,
		`"taken": table s1_own: scenario "own" inserts into a table of that name too`,
		`"pool": 8 connections for 4 clients`,
	} {
		require.ErrorContains(t, err, want)
	}
}

// TestCounterScenarioResults: metrics per scenario, ratios paired by round
// (a round the against scenario did not run has none), latencies pooled.
func TestCounterScenarioResults(t *testing.T) {
	scs := []scenariofile.Scenario{
		{Name: "plain", Workload: scenariofile.WorkloadCounters},
		{Name: "ct", Workload: scenariofile.WorkloadCounters, Against: "plain"},
	}
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	runs := []CounterRun{
		{Round: 1, Case: "plain", InsertsPerSec: 1000, latencies: ms(1, 1, 2)},
		{Round: 1, Case: "ct", InsertsPerSec: 800, latencies: ms(2, 3)},
		{Round: 2, Case: "ct", InsertsPerSec: 700, latencies: ms(4)},
		{Round: 2, Case: "plain", InsertsPerSec: 1000, latencies: ms(1)},
		{Round: 3, Case: "ct", InsertsPerSec: 900, latencies: ms(5)},
	}
	res := counterScenarioResults(scs, []scenariofile.Size{{Rounds: 2}, {Rounds: 3}}, runs)
	require.Len(t, res, 2)
	require.Nil(t, res[0].Metric("throughput_ratio"))
	require.Len(t, res[1].Runs, 3)

	tp := res[1].Metric("throughput")
	require.Equal(t, []float64{800, 700, 900}, tp.Samples)
	require.Equal(t, 800.0, tp.Value)
	require.Equal(t, 3, tp.N)
	require.Equal(t, scenariofile.UnitInsertsPerSec, tp.Unit)
	require.True(t, tp.HigherIsBetter)
	require.Equal(t, 700.0, tp.Low)
	require.Equal(t, 900.0, tp.High)
	require.InDelta(t, 0.75, tp.Level, 1e-9)

	ratio := res[1].Metric("throughput_ratio")
	require.Equal(t, []float64{0.8, 0.7}, ratio.Samples)
	require.InDelta(t, 0.75, ratio.Value, 1e-9)
	require.Equal(t, scenariofile.UnitRatio, ratio.Unit)

	p50 := res[1].Metric("insert_p50")
	require.Equal(t, []float64{0.002, 0.004, 0.005}, p50.Samples)
	require.Equal(t, 0.003, p50.Value, "median of 2, 3, 4, 5 ms (empirical: the lower)")
	require.Equal(t, 4, p50.N)
	require.Equal(t, scenariofile.UnitSeconds, p50.Unit)
	require.False(t, p50.HigherIsBetter)
	require.NotNil(t, p50.Histogram)
	require.NotNil(t, res[1].Metric("insert_p99"))
	require.Equal(t, 0.005, res[1].Metric("insert_p99").Value)
}

// TestCounterRunnerChecksNumbers: a run's rows that skip a number, and a
// table that lost a preloaded row, fail the checks.
func TestCounterRunnerChecksNumbers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgseqtest.New(t)
	cr, err := newCounterRunner(ctx, db.Pool, db.Schema, []counterCase{{clients: 1}})
	require.NoError(t, err)
	defer cr.close(ctx)
	ct := counterTable{"ct", scenariofile.StrategyCounterTable, 2, 3}
	opt := counterTable{"opt", scenariofile.StrategyOptimistic, 2, 3}
	require.NoError(t, cr.setup(ctx, []counterTable{ct, opt}))
	require.NoError(t, cr.verifyTables(ctx))
	db = db.With("{{ct}}", cr.table("ct")).With("{{opt}}", cr.table("opt"))

	db.Exec(`INSERT INTO {{ct}} (project_id) VALUES (1), (1), (2)`)
	require.NoError(t, cr.verifyRun(ctx, ct, 3))
	require.Equal(t, map[int64]int64{1: 5, 2: 4}, cr.issued["ct"])
	db.Exec(`DELETE FROM {{ct}} WHERE index > 3`)
	db.Exec(`INSERT INTO {{ct}} (project_id) VALUES (1), (1)`)
	db.Exec(`DELETE FROM {{ct}} WHERE index = 6`)
	require.ErrorContains(t, cr.verifyRun(ctx, ct, 1), "ct (counter_table) is not numbered gaplessly: scope 1: 1 rows numbered 7–7 with 1 distinct numbers, where gapless numbering gives 6–6")
	db.Exec(`DELETE FROM {{ct}} WHERE index > 3`)
	require.NoError(t, cr.verifyTables(ctx), "counter_table never reissues: the counter is at 7, as last issued")

	db.Exec(`INSERT INTO {{opt}} (project_id, index) VALUES (2, 5)`)
	require.ErrorContains(t, cr.verifyRun(ctx, opt, 2), "scope 2: 1 rows numbered 5–5 with 1 distinct numbers, where gapless numbering gives 4–4; the table holds 1 rows from the run, its clients committed 2")
	db.Exec(`DELETE FROM {{opt}} WHERE index = 2 AND project_id = 1`)
	require.ErrorContains(t, cr.verifyTables(ctx), "after the runs, opt (optimistic): scope 1: 2 rows numbered 1–3 with 2 distinct numbers, where the preload was 1–3; scope 2: 4 rows")
}
