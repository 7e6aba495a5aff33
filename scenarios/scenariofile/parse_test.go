package scenariofile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/spec"
)

// scenarioWantRE matches an expected diagnostic in a bad scenario file:
// "# want: 3:17: Invalid workload".
var scenarioWantRE = regexp.MustCompile(`(?m)^#\s*want:\s*(\d+:\d+: .+?)\s*$`)

// scenarioDiagLines renders diagnostics as "line:col: Summary".
func scenarioDiagLines(diags hcl.Diagnostics) []string {
	var lines []string
	for _, d := range diags {
		if d.Subject == nil {
			lines = append(lines, d.Summary)
			continue
		}
		lines = append(lines, fmt.Sprintf("%d:%d: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
	}
	return lines
}

// printDiags renders diagnostics as pgseq prints them, source lines
// included.
func printDiags(t *testing.T, diags hcl.Diagnostics, files map[string][]byte) string {
	t.Helper()
	hf := map[string]*hcl.File{}
	for name, src := range files {
		hf[name] = &hcl.File{Bytes: src}
	}
	var out bytes.Buffer
	require.NoError(t, spec.WriteDiagnostics(&out, diags, hf))
	return out.String()
}

// TestScenarioFilesBad checks that each file in
// testdata/scenario-files/bad reports exactly the diagnostics its
// "# want:" comments list, each an error with a source range in that file
// and a detail, and that they print as testdata/scenario-files/diagnostics/NAME.txt
// holds (go test -run ScenarioFilesBad -update rewrites them).
func TestScenarioFilesBad(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/scenario-files/bad/*.hcl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 30)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".hcl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			var want []string
			for _, m := range scenarioWantRE.FindAllStringSubmatch(string(src), -1) {
				want = append(want, m[1])
			}
			require.NotEmpty(t, want, "%s has no # want: comment", path)

			_, diags := Load(path)
			require.Equal(t, want, scenarioDiagLines(diags))
			for _, d := range diags {
				require.Equal(t, hcl.DiagError, d.Severity, d.Summary)
				require.NotNil(t, d.Subject, d.Summary)
				require.Equal(t, path, d.Subject.Filename)
				require.NotEmpty(t, d.Detail, d.Summary)
			}

			got := printDiags(t, diags, map[string][]byte{path: src})
			golden.Check(t, filepath.Join("testdata", "scenario-files", "diagnostics", name+".txt"), got)
		})
	}
}

func thresholdValue(v float64) *float64 { return &v }

// stripRanges returns scs without their source ranges, after checking
// that each lies in file.
func stripRanges(t *testing.T, file string, scs []Scenario) []Scenario {
	t.Helper()
	out := make([]Scenario, len(scs))
	for i, s := range scs {
		require.Equal(t, file, s.DeclRange.Filename, s.Name)
		require.Positive(t, s.DeclRange.Start.Line, s.Name)
		s.Thresholds = append([]Threshold(nil), s.Thresholds...)
		for j := range s.Thresholds {
			require.Equal(t, file, s.Thresholds[j].Range.Filename, s.Name)
			require.Greater(t, s.Thresholds[j].Range.Start.Line, s.DeclRange.Start.Line, s.Name)
			s.Thresholds[j].Range = hcl.Range{}
		}
		s.DeclRange = hcl.Range{}
		out[i] = s
	}
	return out
}

// TestScenarioFilesGood loads each file of testdata/scenario-files/good
// and compares its scenarios with the expected ones.
func TestScenarioFilesGood(t *testing.T) {
	t.Parallel()
	bench50 := catalog.DefaultQueue("bench")
	bench50.BatchSize = 50
	bench200 := catalog.DefaultQueue("bench")
	bench200.BatchSize = 200
	bench100 := catalog.DefaultQueue("bench")
	bench100.BatchSize = 100
	oneLimited := make([]catalog.TaskType, 100)
	for i := range oneLimited {
		oneLimited[i] = catalog.TaskType{Name: fmt.Sprintf("noop.%04d", i), Queue: "bench"}
	}
	oneLimited[0].Concurrency = 10
	soakQueue := catalog.DefaultQueue("soak")
	soakQueue.BatchSize = 100
	soakQueue.LeaderLease = catalog.Duration(3 * time.Second)
	soakQueue.Retention.Completed = catalog.Duration(10 * time.Second)
	bench20 := catalog.DefaultQueue("bench")
	bench20.BatchSize = 20

	cases := []struct {
		path string
		want []Scenario
	}{
		{
			path: "testdata/scenario-files/good/drain.hcl",
			want: []Scenario{
				{
					Name: "baseline", Description: "reference", Workload: WorkloadDrain,
					Size:  Size{Tasks: 1000, Rounds: 3, Warmup: 100, Workers: 2, PoolSize: 4, BatchSize: 50},
					Quick: Size{Tasks: 100},
					Config: catalog.State{
						Queues:    []catalog.Queue{bench50},
						TaskTypes: []catalog.TaskType{{Name: "noop", Queue: "bench"}},
					},
					Thresholds: []Threshold{
						{Metric: "throughput", Min: thresholdValue(20000)},
						{Metric: "claim_p99", Max: thresholdValue(0.001)},
						{Metric: "complete_p99", Min: thresholdValue(0.0001), Max: thresholdValue(0.0025)},
					},
				},
				{
					Name: "enabled", Workload: WorkloadDrain, Against: "baseline",
					HandlerDelay: 1500 * time.Microsecond,
					Size:         Size{Rounds: 3},
					Config: catalog.State{
						Queues: []catalog.Queue{catalog.DefaultQueue("limited")},
						TaskTypes: []catalog.TaskType{
							{Name: "noop.0000", Queue: "limited", Concurrency: 10},
							{Name: "noop.0001", Queue: "limited", Concurrency: 10},
							{Name: "noop.0002", Queue: "limited"},
						},
					},
					Thresholds: []Threshold{{Metric: "throughput_ratio", Min: thresholdValue(0.85), Max: thresholdValue(1.5)}},
				},
			},
		},
		{
			path: "testdata/scenario-files/good/explain.hcl",
			want: []Scenario{
				{
					Name: "saturated", Workload: WorkloadExplain,
					Size:  Size{Tasks: 1_000_000},
					Quick: Size{Tasks: 100_000},
					Config: catalog.State{
						Queues: []catalog.Queue{bench100},
						TaskTypes: []catalog.TaskType{
							{Name: "blocked", Queue: "bench", Concurrency: 5},
							{Name: "free", Queue: "bench", Priority: 1},
						},
					},
					Explain: ExplainSpec{Saturated: "blocked", Batch: 50},
					Thresholds: []Threshold{
						{Metric: "seq_scans", Max: thresholdValue(0)},
						{Metric: "claim_time", Max: thresholdValue(0.25)},
					},
				},
				{
					Name: "one-limited", Workload: WorkloadExplain,
					Size:   Size{BatchSize: 200},
					Config: catalog.State{Queues: []catalog.Queue{bench200}, TaskTypes: oneLimited},
				},
				{
					Name: "member", Workload: WorkloadExplain, Against: "one-limited",
					Config: catalog.State{
						Queues:    []catalog.Queue{catalog.DefaultQueue("bench")},
						TaskTypes: []catalog.TaskType{{Name: "noop", Queue: "bench"}},
					},
				},
			},
		},
		{
			path: "testdata/scenario-files/good/counters.hcl",
			want: []Scenario{
				{
					Name: "plain", Workload: WorkloadCounters,
					Size:    Size{Rounds: 4, Clients: 8, Duration: time.Second},
					Quick:   Size{Duration: 250 * time.Millisecond},
					Counter: CounterSpec{Strategy: StrategyPlain, Scopes: 1},
				},
				{
					Name: "counter_table", Description: "attached counter", Workload: WorkloadCounters, Against: "plain",
					Size:    Size{Clients: 64},
					Quick:   Size{Rounds: 4},
					Counter: CounterSpec{Strategy: StrategyCounterTable, Scopes: 1000},
					Thresholds: []Threshold{
						{Metric: "throughput_ratio", Min: thresholdValue(0.7)},
						{Metric: "insert_p99", Max: thresholdValue(0.00025)},
					},
				},
				{
					Name: "hot-8", Workload: WorkloadCounters,
					Counter: CounterSpec{Strategy: StrategyCounterTable, Scopes: 1, RowsPerScope: 10000, Table: "hot"},
				},
				{
					Name: "hot-64-pool-8", Workload: WorkloadCounters,
					Size:    Size{Clients: 64, Connections: 8},
					Counter: CounterSpec{Strategy: StrategyCounterTable, Scopes: 1, RowsPerScope: 10000, Table: "hot"},
				},
			},
		},
		{
			path: "testdata/scenario-files/good/soak.hcl",
			want: []Scenario{
				{
					Name: "churn", Description: "retention on", Workload: WorkloadSoak,
					HandlerDelay: time.Millisecond,
					Size:         Size{Duration: 30 * time.Minute, Rate: 1000, Workers: 2, PoolSize: 4},
					Quick:        Size{Duration: time.Minute},
					Config: catalog.State{
						Queues: []catalog.Queue{soakQueue},
						TaskTypes: []catalog.TaskType{
							{Name: "email", Queue: "soak"},
							{Name: "render", Queue: "soak", Concurrency: 50},
						},
					},
					Soak: SoakSpec{
						HoldSnapshot: true,
						Storage: []StorageSetting{
							{Table: "tasks", Params: []StorageParam{
								{"fillfactor", "90"}, {"autovacuum_vacuum_scale_factor", "0.01"}, {"autovacuum_enabled", "true"},
							}},
							{Table: "concurrency_slots", Params: []StorageParam{{"autovacuum_vacuum_cost_delay", "0"}}},
						},
					},
					Thresholds: []Threshold{
						{Metric: "claim_p99_growth", Max: thresholdValue(2)},
						{Metric: "claim_p99_last", Max: thresholdValue(0.05)},
						{Metric: "table_size_last", Max: thresholdValue(100_000_000)},
					},
				},
				{
					Name: "generated", Workload: WorkloadSoak,
					Size: Size{Rate: 50, BatchSize: 20},
					Config: catalog.State{
						Queues: []catalog.Queue{bench20},
						TaskTypes: []catalog.TaskType{
							{Name: "noop.0000", Queue: "bench", Concurrency: 5},
							{Name: "noop.0001", Queue: "bench"},
						},
					},
				},
			},
		},
		{
			path: "testdata/scenario-files/good/scale.hcl",
			want: []Scenario{
				{
					Name: "scale-100k", Description: "100,000 limited task types", Workload: WorkloadScale,
					Size:  Size{TaskTypes: 100_000, Limit: 1000, Rounds: 3},
					Quick: Size{TaskTypes: 10_000},
					Thresholds: []Threshold{
						{Metric: "first_apply", Max: thresholdValue(60)},
						{Metric: "noop_plan", Max: thresholdValue(5)},
						{Metric: "peak_heap", Max: thresholdValue(500_000_000)},
					},
				},
				{Name: "defaults", Workload: WorkloadScale},
			},
		},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel()
			scs, diags := Load(c.path)
			require.Empty(t, diags, "%s", diags)
			require.Equal(t, c.want, stripRanges(t, c.path, scs))
		})
	}
}

// TestShippedScenarioFiles loads the scenario files pgseq ships (the *.hcl
// of package scenarios, the parent directory, of its instructions/
// directory, bench ab --instructions's, and of its bench-counters/
// directory, bench counters') together and each on its own: no
// diagnostic at all, and the groups and thresholds the files' comments
// promise.
func TestShippedScenarioFiles(t *testing.T) {
	t.Parallel()
	var shipped []string
	for _, pattern := range []string{"*.hcl", filepath.Join("instructions", "*.hcl"), filepath.Join("bench-counters", "*.hcl")} {
		matches, err := filepath.Glob(filepath.Join("..", pattern))
		require.NoError(t, err)
		shipped = append(shipped, matches...)
	}
	var files []string
	for _, f := range shipped {
		rel, err := filepath.Rel("..", f)
		require.NoError(t, err)
		files = append(files, filepath.ToSlash(rel))
		_, diags := Load(f)
		require.Empty(t, diags, "%s: %s", f, diags)
	}
	require.ElementsMatch(t, []string{"counters.hcl", "drain.hcl", "explain.hcl", "scale.hcl", "soak.hcl", "instructions/drain.hcl",
		"bench-counters/counters.hcl"}, files)

	scs, diags := Load("..")
	require.Empty(t, diags, "%s", diags)
	byName := map[string]Scenario{}
	var names []string
	for _, s := range scs {
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	// Files in name order, scenarios in block order.
	require.Equal(t, []string{
		"spread-plain", "spread-counter_table", "spread-advisory_lock", "spread-optimistic",
		"hot-counter_table-8", "hot-counter_table-64", "hot-advisory_lock-8", "hot-advisory_lock-64",
		"hot-optimistic-8", "hot-optimistic-64",
		"rows-counter_table-1k", "rows-counter_table-100k", "rows-advisory_lock-1k", "rows-advisory_lock-100k",
		"rows-optimistic-1k", "rows-optimistic-100k",
		"baseline", "enabled", "mixed", "many", "high-baseline", "high", "binding",
		"partitioned-reference", "partitioned", "keys-one", "keys-scale",
		"explain-no-limit", "explain-one-limited", "explain-all-limited", "explain-saturated",
		"explain-saturated-key",
		"scale-100k",
		"soak-retention", "soak-held-snapshot",
	}, names)

	bound := func(name, metric string) (lo, hi *float64) {
		t.Helper()
		for _, th := range byName[name].Thresholds {
			if th.Metric == metric {
				return th.Min, th.Max
			}
		}
		t.Fatalf("%s has no %s threshold", name, metric)
		return nil, nil
	}
	limits := func(name string) (limited, limit int) {
		for _, tt := range byName[name].Config.TaskTypes {
			if tt.Concurrency > 0 {
				limited++
				limit = tt.Concurrency
			}
		}
		return limited, limit
	}

	// Drain: source 002's criteria and pgseq's targets (scenarios/drain_report.go).
	base := byName["baseline"]
	require.Equal(t, Size{Tasks: 200_000, Rounds: 5, Warmup: 20_000, Workers: 1, PoolSize: 4, BatchSize: 200}, base.Size)
	require.Equal(t, Size{Tasks: 20_000, Rounds: 5, Warmup: 5000}, base.Quick)
	// bench compare tests per-round metrics with a Mann–Whitney U test,
	// which can never reach p < 0.05 with 3 rounds a side: every shipped
	// scenario measured in rounds has at least 5, at both sizes.
	for _, sc := range byName {
		if sc.Workload == WorkloadExplain || sc.Workload == WorkloadSoak {
			continue // measured once: no rounds
		}
		if sc.Workload == WorkloadScale {
			continue // applies once; its 3 no-op plans are a budget (checked below), not compared
		}
		for _, quick := range []bool{false, true} {
			require.GreaterOrEqual(t, EffectiveSize(sc, quick).Rounds, 5, "%s (quick %v)", sc.Name, quick)
		}
	}
	lo, _ := bound("baseline", "throughput")
	require.Equal(t, 20_000.0, *lo)
	for name, want := range map[string]struct {
		types, limited, limit int
		ratio                 float64
	}{
		"enabled": {100, 100, 10, 0.85},
		"mixed":   {100, 1, 10, 0.95},
		"many":    {1000, 1000, 1000, 0.80},
	} {
		s := byName[name]
		require.Equal(t, "baseline", s.Against, name)
		require.Equal(t, base.Size, s.Size, name)
		require.Equal(t, base.Quick, s.Quick, name)
		require.Len(t, s.Config.TaskTypes, want.types, name)
		limited, limit := limits(name)
		require.Equal(t, want.limited, limited, name)
		require.Equal(t, want.limit, limit, name)
		lo, _ := bound(name, "throughput_ratio")
		require.Equal(t, want.ratio, *lo, name)
		_, hi := bound(name, "slot_release")
		require.Equal(t, 0.001, *hi, name)
	}
	high, highBase := byName["high"], byName["high-baseline"]
	require.Equal(t, "high-baseline", high.Against)
	require.Equal(t, highBase.Size, high.Size)
	require.Equal(t, Size{Tasks: 100_000, Rounds: 5, Warmup: 20_000, Workers: 8, PoolSize: 4, BatchSize: 500}, high.Size)
	limited, limit := limits("high")
	require.Equal(t, []int{1, 500}, []int{limited, limit})
	limited, _ = limits("high-baseline")
	require.Zero(t, limited)
	lo, _ = bound("high", "throughput_ratio")
	require.Equal(t, 0.85, *lo)
	binding := byName["binding"]
	require.Equal(t, 20*time.Millisecond, binding.HandlerDelay)
	require.Equal(t, Size{Tasks: 5000, Rounds: 5, Warmup: 500, Workers: 4, PoolSize: 4}, binding.Size)
	require.Equal(t, Size{Tasks: 1000, Warmup: 100}, binding.Quick)
	lo, _ = bound("binding", "ideal_share")
	require.Equal(t, 0.90, *lo)
	_, hi := bound("binding", "running_max")
	require.Equal(t, 10.0, *hi)

	// Explain: a million pending tasks, plans bounded whatever the size.
	for _, name := range []string{"explain-no-limit", "explain-one-limited", "explain-all-limited", "explain-saturated"} {
		s := byName[name]
		require.Equal(t, 1_000_000, s.Size.Tasks, name)
		require.Equal(t, 100_000, s.Quick.Tasks, name)
		require.Equal(t, 100, s.Explain.Batch, name)
		_, hi := bound(name, "seq_scans")
		require.Equal(t, 0.0, *hi, name)
		_, hi = bound(name, "rows_examined")
		require.Equal(t, 400.0, *hi, name)
		_, hi = bound(name, "buffers")
		require.NotNil(t, hi, name)
	}
	require.Equal(t, "blocked", byName["explain-saturated"].Explain.Saturated)
	// One key's million, ahead of an unlimited type's million.
	key := byName["explain-saturated-key"]
	require.Equal(t, 2_000_000, key.Size.Tasks)
	require.Equal(t, 100_000, key.Quick.Tasks)
	require.Equal(t, "render", key.Explain.Saturated)
	for _, metric := range []string{"seq_scans", "rows_examined"} {
		_, hi := bound("explain-saturated-key", metric)
		_, want := bound("explain-saturated", metric)
		require.Equal(t, *want, *hi, metric)
	}

	// Counters: every member in its reference's rounds; the repository's
	// two targets (counters.go).
	for _, s := range scs {
		if s.Workload != WorkloadCounters {
			continue
		}
		if s.Against != "" {
			ref := byName[s.Against]
			require.Equal(t, ref.Size.Rounds, s.Size.Rounds, s.Name)
			require.Equal(t, ref.Size.Merge(ref.Quick).Rounds, s.Size.Merge(s.Quick).Rounds, s.Name)
		}
	}
	lo, _ = bound("spread-counter_table", "throughput_ratio")
	require.Equal(t, 0.70, *lo)
	require.Equal(t, "spread-plain", byName["spread-counter_table"].Against)
	lo, _ = bound("hot-counter_table-64", "throughput_ratio")
	require.Equal(t, 0.80, *lo)
	require.Equal(t, "hot-counter_table-8", byName["hot-counter_table-64"].Against)
	require.Equal(t, 64, byName["hot-counter_table-64"].Size.Clients)

	// Soak: the same churn with and without a held snapshot, 30 minutes
	// (1 quick), retention short enough that maintenance purges during
	// the run, limited types in the mix; the claim's p99 may at most
	// double with nothing in vacuum's way.
	retention, held := byName["soak-retention"], byName["soak-held-snapshot"]
	require.False(t, retention.Soak.HoldSnapshot)
	require.True(t, held.Soak.HoldSnapshot)
	for _, s := range []Scenario{retention, held} {
		require.Equal(t, Size{Duration: 30 * time.Minute, Rate: 1000, Workers: 2, PoolSize: 4}, s.Size, s.Name)
		require.Equal(t, Size{Duration: time.Minute}, s.Quick, s.Name)
		require.Equal(t, retention.Config, s.Config, s.Name)
		q := s.Config.Queues[0]
		require.Less(t, time.Duration(q.Retention.Completed), time.Minute, s.Name)
		require.LessOrEqual(t, time.Duration(q.LeaderLease), 3*time.Second, s.Name)
		limited, _ := limits(s.Name)
		require.Positive(t, limited, s.Name)
		require.Less(t, limited, len(s.Config.TaskTypes), s.Name)
		lo, _ := bound(s.Name, "tasks_purged")
		require.Equal(t, 1.0, *lo, s.Name)
	}
	_, hi = bound("soak-retention", "claim_p50_growth")
	require.Equal(t, 3.0, *hi)
	for _, th := range held.Thresholds {
		require.NotContains(t, th.Metric, "growth", "a held snapshot is shown, not judged")
	}

	// Scale: the 100,000 types limited to 1,000 (10,000 quick),
	// and its targets.
	scale := byName["scale-100k"]
	require.Equal(t, Size{TaskTypes: 100_000, Limit: 1000, Rounds: 3}, scale.Size)
	require.Equal(t, Size{TaskTypes: 10_000}, scale.Quick)
	require.Equal(t, Size{TaskTypes: 10_000, Limit: 1000, Rounds: 3}, EffectiveSize(scale, true))
	for metric, want := range map[string]float64{"first_apply": 60, "noop_plan": 5, "change_1pct": 10, "peak_heap": 500_000_000} {
		_, hi := bound("scale-100k", metric)
		require.Equal(t, want, *hi, metric)
	}

	// Instructions: drain.hcl's first four scenarios at the counted size,
	// each alone (no against) and without thresholds (they judge times).
	counted, diags := Load(filepath.Join("..", "instructions"))
	require.Empty(t, diags, "%s", diags)
	var countedNames []string
	for _, s := range counted {
		countedNames = append(countedNames, s.Name)
		drain := byName[s.Name]
		require.Equal(t, WorkloadDrain, s.Workload, s.Name)
		require.Equal(t, drain.Description, s.Description, s.Name)
		require.Equal(t, drain.Config, s.Config, s.Name)
		require.Empty(t, s.Against, s.Name)
		require.Empty(t, s.Thresholds, s.Name)
		require.Equal(t, Size{Tasks: 20_000, Rounds: 1, Warmup: 1, Workers: 1, PoolSize: 4, BatchSize: 200}, s.Size, s.Name)
	}
	require.Equal(t, []string{"baseline", "enabled", "mixed", "many"}, countedNames)

	// Bench counters: its twelve cases (pinned in package scenarios,
	// TestCountersFileCases), sized by its flags and compared by its
	// report, so without rounds, duration, against or thresholds. Two of
	// its names are counters.hcl's too: it is a run of its own.
	cases, diags := Load(filepath.Join("..", "bench-counters"))
	require.Empty(t, diags, "%s", diags)
	require.Len(t, cases, 12)
	for _, s := range cases {
		require.Equal(t, WorkloadCounters, s.Workload, s.Name)
		require.Equal(t, Size{Clients: s.Size.Clients, Connections: s.Size.Connections}, s.Size, s.Name)
		require.Zero(t, s.Quick, s.Name)
		require.Empty(t, s.Against, s.Name)
		require.Empty(t, s.Thresholds, s.Name)
	}
}

// TestParseScenariosAcrossFiles checks what spans files: duplicate names,
// against, the order of the result, and that a file with syntax errors
// suspends the checks between scenarios.
func TestParseScenariosAcrossFiles(t *testing.T) {
	t.Parallel()
	ref := []byte("scenario \"baseline\" {\n  workload = \"drain\"\n  types { count = 1 }\n}\n")
	member := []byte("scenario \"enabled\" {\n  workload = \"drain\"\n  against  = \"baseline\"\n  types { count = 1 }\n}\n")

	t.Run("order and references", func(t *testing.T) {
		t.Parallel()
		scs, diags := Parse(map[string][]byte{"b.hcl": ref, "a.hcl": member})
		require.Empty(t, diags)
		require.Len(t, scs, 2)
		require.Equal(t, "enabled", scs[0].Name)
		require.Equal(t, "a.hcl", scs[0].DeclRange.Filename)
		require.Equal(t, "baseline", scs[1].Name)
	})
	t.Run("duplicate", func(t *testing.T) {
		t.Parallel()
		_, diags := Parse(map[string][]byte{"b.hcl": ref, "a.hcl": ref})
		require.Equal(t, []string{"1:10: Duplicate scenario"}, scenarioDiagLines(diags))
		require.Equal(t, "b.hcl", diags[0].Subject.Filename)
		require.Contains(t, diags[0].Detail, "already declared at a.hcl:1:10")
	})
	t.Run("syntax error elsewhere", func(t *testing.T) {
		t.Parallel()
		_, diags := Parse(map[string][]byte{"a.hcl": member, "b.hcl": []byte("scenario \"baseline\" {\n")})
		require.True(t, diags.HasErrors())
		for _, d := range diags {
			require.Equal(t, "b.hcl", d.Subject.Filename, d.Summary)
		}
	})
	t.Run("too large", func(t *testing.T) {
		t.Parallel()
		big := bytes.Repeat([]byte("# padding\n"), spec.MaxFileSize/10+1)
		_, diags := Parse(map[string][]byte{"big.hcl": big})
		require.Len(t, diags, 1)
		require.Equal(t, "big.hcl", diags[0].Subject.Filename)
	})
	t.Run("nothing declared", func(t *testing.T) {
		t.Parallel()
		_, diags := Parse(map[string][]byte{"empty.hcl": []byte("# nothing\n")})
		require.Equal(t, []string{"1:1: No scenarios"}, scenarioDiagLines(diags))
		_, diags = Parse(nil)
		require.Equal(t, []string{"No scenario files"}, scenarioDiagLines(diags))
	})
}

// TestLoadScenariosPaths checks how paths are read: directories (their
// *.hcl files only, not recursively), files named twice, missing paths.
func TestLoadScenariosPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	a := write("a.hcl", "scenario \"a\" {\n  workload = \"drain\"\n  types { count = 1 }\n}\n")
	write("b.hcl", "scenario \"b\" {\n  workload = \"drain\"\n  against  = \"a\"\n  types { count = 1 }\n}\n")
	write("notes.txt", "not a scenario file")
	write("sub/c.hcl", "this would not parse {")
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))

	scs, diags := Load(dir, a)
	require.Empty(t, diags)
	require.Len(t, scs, 2)
	require.Equal(t, "a", scs[0].Name)
	require.Equal(t, "b", scs[1].Name)

	files, diags := ReadFiles(dir)
	require.Empty(t, diags)
	require.Len(t, files, 2)

	_, diags = Load(empty)
	require.Equal(t, []string{"No scenario files"}, scenarioDiagLines(diags))
	require.Contains(t, diags[0].Detail, empty)

	_, diags = Load(filepath.Join(dir, "missing.hcl"))
	require.Equal(t, []string{"Scenario path not found"}, scenarioDiagLines(diags))

	_, diags = Load()
	require.Equal(t, []string{"No scenario files"}, scenarioDiagLines(diags))

	// A missing path beside a good one: both reported, nothing else.
	_, diags = Load(a, filepath.Join(dir, "missing.hcl"))
	require.Equal(t, []string{"Scenario path not found"}, scenarioDiagLines(diags))
}

func TestParseScenariosGeneratedTypes(t *testing.T) {
	t.Parallel()
	one := GenerateTypes(1, 1, 500, "bench", 0)
	require.Equal(t, []catalog.Queue{catalog.DefaultQueue("bench")}, one.Queues)
	require.Equal(t, []catalog.TaskType{{Name: "noop", Queue: "bench", Concurrency: 500}}, one.TaskTypes)

	many := GenerateTypes(12_000, 3, 7, "q", 250)
	require.Equal(t, 250, many.Queues[0].BatchSize)
	require.Len(t, many.TaskTypes, 12_000)
	require.Equal(t, catalog.TaskType{Name: "noop.00000", Queue: "q", Concurrency: 7}, many.TaskTypes[0])
	require.Equal(t, catalog.TaskType{Name: "noop.00002", Queue: "q", Concurrency: 7}, many.TaskTypes[2])
	require.Equal(t, catalog.TaskType{Name: "noop.00003", Queue: "q"}, many.TaskTypes[3])
	require.Equal(t, "noop.11999", many.TaskTypes[11_999].Name)
	for i := 1; i < len(many.TaskTypes); i++ {
		require.Less(t, many.TaskTypes[i-1].Name, many.TaskTypes[i].Name, "names sort in order")
	}
}

// FuzzParseScenarios feeds arbitrary files to the parser: it must never
// panic, every error must point into the file (line and column), and a
// file without errors must give scenarios that keep the format's rules.
// A longer session:
//
//	go test ./scenarios/internal/scenariofile -run '^$' -fuzz '^FuzzParseScenarios$' -fuzztime 10m
func FuzzParseScenarios(f *testing.F) {
	// The shipped scenario files (package scenarios) seed it too.
	seeds, err := filepath.Glob(filepath.Join("..", "*.hcl"))
	require.NoError(f, err)
	for _, dir := range []string{"bad", "good"} {
		more, err := filepath.Glob(filepath.Join("testdata", "scenario-files", dir, "*.hcl"))
		require.NoError(f, err)
		seeds = append(seeds, more...)
	}
	for _, p := range seeds {
		src, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		scs, diags := Parse(map[string][]byte{"fuzz.hcl": src})
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				// Every rejection says where: file, line and column.
				require.NotNil(t, d.Subject, d.Summary)
			}
			if d.Subject != nil {
				require.Equal(t, "fuzz.hcl", d.Subject.Filename, d.Summary)
				require.Positive(t, d.Subject.Start.Line, d.Summary)
				require.Positive(t, d.Subject.Start.Column, d.Summary)
			}
		}
		if diags.HasErrors() {
			return
		}
		names := map[string]bool{}
		for _, s := range scs {
			for _, quick := range []bool{false, true} {
				size := EffectiveSize(s, quick)
				require.Positive(t, size.Rounds, s.Name)
				if s.Workload == WorkloadSoak {
					require.Positive(t, size.Duration, s.Name)
					require.Positive(t, size.Rate, s.Name)
					require.Positive(t, size.Workers, s.Name)
				}
				if s.Workload == WorkloadScale {
					require.Positive(t, size.TaskTypes, s.Name)
					require.Positive(t, size.Limit, s.Name)
				}
			}
			require.True(t, scenarioNameRE.MatchString(s.Name), s.Name)
			require.False(t, names[s.Name], s.Name)
			names[s.Name] = true
			require.Contains(t, Workloads, s.Workload)
			if s.Workload != WorkloadCounters && s.Workload != WorkloadScale {
				require.NotEmpty(t, s.Config.Queues, s.Name)
				require.NotEmpty(t, s.Config.TaskTypes, s.Name)
			}
			for _, th := range s.Thresholds {
				require.True(t, th.Min != nil || th.Max != nil, s.Name)
				if th.Min != nil && th.Max != nil {
					require.LessOrEqual(t, *th.Min, *th.Max, s.Name)
				}
			}
		}
		for _, s := range scs {
			if s.Against != "" {
				require.True(t, names[s.Against], s.Name)
				require.Empty(t, scs[scenarioIndex(scs, s.Against)].Against, s.Name)
			}
		}
	})
}

// scenarioIndex returns the index of the scenario named name, or -1.
func scenarioIndex(scs []Scenario, name string) int {
	for i, s := range scs {
		if s.Name == name {
			return i
		}
	}
	return -1
}
