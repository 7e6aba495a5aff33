package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// noisy returns n values around mean with a relative spread sd (log-normal
// noise from a fixed seed).
func noisy(seed uint64, n int, mean, sd float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * math.Exp(sd*r.NormFloat64())
	}
	return out
}

func throughputRow(scenario string, base, cand []float64) Row {
	return Row{Scenario: scenario, Metric: "throughput", Unit: scenariofile.UnitTasksPerSec, HigherIsBetter: true,
		Gated: true, Base: base, Candidate: cand}
}

func goCPURow(base, cand []float64) Row {
	return Row{Scenario: "high", Metric: GoCPUPerTask, Unit: scenariofile.UnitSeconds, Gated: true, Base: base, Candidate: cand}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		row  Row
		want Verdict
	}{
		{"the same build: noise only",
			throughputRow("baseline", noisy(1, 8, 40000, 0.05), noisy(2, 8, 40000, 0.05)), NoChange},
		{"10% slower, 2% noise",
			throughputRow("baseline", noisy(3, 8, 40000, 0.02), noisy(4, 8, 36000, 0.02)), Regression},
		{"10% faster, 2% noise",
			throughputRow("baseline", noisy(5, 8, 40000, 0.02), noisy(6, 8, 44000, 0.02)), Improvement},
		{"3% slower, significant but within the 5% floor",
			throughputRow("baseline", noisy(7, 8, 40000, 0.003), noisy(8, 8, 38800, 0.003)), NoChange},
		{"two rounds: too few to test",
			throughputRow("baseline", []float64{40000, 41000}, []float64{30000, 31000}), Undecided},
		{"a round measured zero",
			throughputRow("baseline", []float64{40000, 41000, 0}, []float64{30000, 31000, 32000}), Undecided},
		{"latency is shown, not gated",
			Row{Scenario: "baseline", Metric: "claim_p99", Unit: scenariofile.UnitSeconds,
				Base: []float64{1, 1, 1}, Candidate: []float64{3, 3, 3}}, NotGated},
		{"a plan's buffers 20% up",
			Row{Scenario: "explain", Metric: "buffers", Unit: scenariofile.UnitBuffers, Gated: true, Deterministic: true,
				Base: []float64{1000, 1000, 1000}, Candidate: []float64{1200, 1200, 1200}}, Regression},
		{"a plan's buffers 2% up",
			Row{Scenario: "explain", Metric: "buffers", Unit: scenariofile.UnitBuffers, Gated: true, Deterministic: true,
				Base: []float64{1000, 1000, 1000}, Candidate: []float64{1020, 1020, 1020}}, NoChange},
		{"the Go side's CPU 35% up, significant but within its 40% floor",
			goCPURow(noisy(11, 8, 5e-6, 0.02), noisy(12, 8, 6.75e-6, 0.02)), NoChange},
		{"the Go side's CPU 60% up",
			goCPURow(noisy(13, 8, 5e-6, 0.02), noisy(14, 8, 8e-6, 0.02)), Regression},
		{"a sequential scan where there was none",
			Row{Scenario: "explain", Metric: "seq_scans", Unit: scenariofile.UnitCount, Gated: true, Deterministic: true,
				Base: []float64{0, 0, 0}, Candidate: []float64{1, 1, 1}}, Regression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Judge([]Row{tc.row}, Options{})
			require.Equal(t, tc.want, got[0].Verdict, "%+v", got[0])
		})
	}
}

// Holm's correction: one 10% regression among twenty metrics is still
// found; twenty metrics of noise give no false alarm.
func TestJudgeCorrectsForManyMetrics(t *testing.T) {
	t.Parallel()
	var rows []Row
	for i := range 20 {
		rows = append(rows, throughputRow(string(rune('a'+i)), noisy(uint64(100+2*i), 8, 1000, 0.04), noisy(uint64(101+2*i), 8, 1000, 0.04)))
	}
	got := Judge(rows, Options{})
	require.Zero(t, Count(got, Regression)+Count(got, Improvement), "noise flagged: %+v", got)

	rows[7] = throughputRow("h", noisy(500, 8, 1000, 0.02), noisy(501, 8, 880, 0.02))
	got = Judge(rows, Options{})
	require.Equal(t, 1, Count(got, Regression))
	require.Equal(t, Regression, got[7].Verdict)
	require.Greater(t, got[7].PAdjusted, got[7].P, "the p-value is adjusted")
}

// A calibrated floor replaces the default: a 7% change is a regression
// against a 5% floor, noise against a 9% one.
func TestJudgeUsesTheCalibratedFloor(t *testing.T) {
	t.Parallel()
	row := throughputRow("many", noisy(9, 8, 1000, 0.005), noisy(10, 8, 930, 0.005))
	require.Equal(t, Regression, Judge([]Row{row}, Options{})[0].Verdict)
	cal := &Calibration{Metrics: []Noise{{Scenario: "many", Metric: "throughput", Floor: 0.09}}}
	got := Judge([]Row{row}, Options{Calibration: cal})[0]
	require.Equal(t, NoChange, got.Verdict)
	require.Equal(t, "calibration", got.FloorFrom)
}

func TestOrderIsABBA(t *testing.T) {
	t.Parallel()
	var got []Side
	for i := range 8 {
		got = append(got, Order(i))
	}
	require.Equal(t, []Side{Base, Candidate, Candidate, Base, Base, Candidate, Candidate, Base}, got)
}

func TestCalibrate(t *testing.T) {
	t.Parallel()
	var runs [][]Row
	for j := range 10 {
		runs = append(runs, Judge([]Row{throughputRow("baseline", noisy(uint64(200+2*j), 8, 1000, 0.04), noisy(uint64(201+2*j), 8, 1000, 0.04))}, Options{}))
	}
	c := Calibrate(runs)
	require.Equal(t, 10, c.Runs)
	require.Equal(t, 8, c.Rounds)
	require.Len(t, c.Metrics, 1)
	n := c.Metrics[0]
	require.Len(t, n.Changes, 10)
	largest := 0.0
	for _, ch := range n.Changes {
		largest = math.Max(largest, math.Abs(ch))
	}
	require.Equal(t, largest, n.MaxChange)
	require.InDelta(t, math.Max(MinFloor, FloorMargin*largest), n.Floor, 1e-12)
	require.LessOrEqual(t, n.FalsePositives, n.Significant)
	f, ok := c.Floor("baseline", "throughput")
	require.True(t, ok)
	require.Equal(t, n.Floor, f)
	_, ok = c.Floor("baseline", "claim_p99")
	require.False(t, ok)
}

// A plan's metrics have no test: an A/A run whose plans are the same
// counts as neither significant nor a false alarm.
func TestCalibrateUnchangedPlansAreNotSignificant(t *testing.T) {
	t.Parallel()
	row := Row{Scenario: "explain-saturated", Metric: "rows_examined", Gated: true, Deterministic: true,
		Base: []float64{120}, Candidate: []float64{120}}
	var runs [][]Row
	for range 3 {
		runs = append(runs, Judge([]Row{row}, Options{}))
	}
	c := Calibrate(runs)
	require.Len(t, c.Metrics, 1)
	require.Zero(t, c.Metrics[0].Significant)
	require.Zero(t, c.Metrics[0].FalsePositives)
}

func TestSeriesNeedsTheSameScenarios(t *testing.T) {
	t.Parallel()
	res := func(names ...string) *report.SuiteResult {
		r := &report.SuiteResult{}
		for _, n := range names {
			r.Scenarios = append(r.Scenarios, report.ScenarioResult{Name: n, Workload: scenariofile.WorkloadDrain,
				Metrics: []report.MetricResult{{Name: "throughput", Unit: scenariofile.UnitTasksPerSec, HigherIsBetter: true, Value: 100, N: 1}}})
		}
		return r
	}
	rows, err := Series([]Round{{First: Base, Base: res("a", "b"), Candidate: res("a", "b")}})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.True(t, rows[0].Gated)

	_, err = Series([]Round{{First: Base, Base: res("a"), Candidate: res("a", "b")}})
	require.ErrorContains(t, err, `the base did not measure throughput of scenario "b"`)
}

// bench ab --instructions: the instruction counts are judged against their
// own floor (3%), and throughputs measured under valgrind are only shown.
func TestJudgeCounted(t *testing.T) {
	t.Parallel()
	instr := func(base, cand []float64) Row {
		return Row{Scenario: "baseline", Metric: ServerInstructions, Unit: scenariofile.UnitInstructions, Gated: true,
			Base: base, Candidate: cand}
	}
	for _, tc := range []struct {
		name string
		row  Row
		want Verdict
	}{
		{"the same build: 0.5% noise",
			instr(noisy(11, 5, 3e9, 0.005), noisy(12, 5, 3e9, 0.005)), NoChange},
		{"5% more instructions",
			instr(noisy(13, 5, 3e9, 0.005), noisy(14, 5, 3.15e9, 0.005)), Regression},
		{"2.5% more: within the 3% floor",
			instr(noisy(15, 5, 3e9, 0.001), noisy(16, 5, 3.075e9, 0.001)), NoChange},
		{"5% fewer",
			instr(noisy(17, 5, 3e9, 0.005), noisy(18, 5, 2.85e9, 0.005)), Improvement},
		{"a throughput under valgrind is shown, however far it moved",
			throughputRow("baseline", noisy(19, 5, 1000, 0.01), noisy(20, 5, 500, 0.01)), NotGated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Judge([]Row{tc.row}, Options{Counted: true})
			require.Equal(t, tc.want, got[0].Verdict, "%+v", got[0])
		})
	}
}

// bench ab runs an explain scenario in its first round only, both builds:
// its rows hold the rounds that measured it; a noisy metric missing from a
// round, or a scenario one build ran in a round and the other did not, is
// still an error.
func TestSeriesExplainInTheFirstRoundOnly(t *testing.T) {
	t.Parallel()
	metric := func(name string, v float64) report.MetricResult {
		return report.MetricResult{Name: name, Value: v, N: 1}
	}
	drain := func(v float64) report.ScenarioResult {
		return report.ScenarioResult{Name: "baseline", Workload: scenariofile.WorkloadDrain,
			Metrics: []report.MetricResult{metric("throughput", v), metric("claim_p99", 0.002)}}
	}
	explain := func(extra ...report.MetricResult) report.ScenarioResult {
		return report.ScenarioResult{Name: "explain-no-limit", Workload: scenariofile.WorkloadExplain,
			Metrics: append([]report.MetricResult{metric("rows_examined", 100), metric("buffers", 400),
				metric("seq_scans", 0), metric("claim_time", 0.01)}, extra...)}
	}
	res := func(scs ...report.ScenarioResult) *report.SuiteResult { return &report.SuiteResult{Scenarios: scs} }
	// rounds: the first runs both scenarios, the others the drain alone
	// unless later says otherwise.
	rounds := func(later func(i int) (base, cand *report.SuiteResult)) []Round {
		out := []Round{{First: Base, Base: res(drain(100), explain()), Candidate: res(drain(101), explain())}}
		for i := 1; i < 4; i++ {
			b, c := later(i)
			out = append(out, Round{First: Order(i), Base: b, Candidate: c})
		}
		return out
	}
	drainsOnly := func(int) (*report.SuiteResult, *report.SuiteResult) { return res(drain(100)), res(drain(102)) }
	for _, tc := range []struct {
		name    string
		rounds  []Round
		lens    map[string]int // rows' values by metric: scenario/metric
		wantErr string
	}{
		{name: "explain in round 1, the drain in every round",
			rounds: rounds(drainsOnly),
			lens: map[string]int{"baseline/throughput": 4, "baseline/claim_p99": 4, "explain-no-limit/rows_examined": 1,
				"explain-no-limit/buffers": 1, "explain-no-limit/seq_scans": 1, "explain-no-limit/claim_time": 1}},
		{name: "explain in every round",
			rounds: rounds(func(int) (*report.SuiteResult, *report.SuiteResult) {
				return res(drain(100), explain()), res(drain(102), explain())
			}),
			lens: map[string]int{"baseline/throughput": 4, "baseline/claim_p99": 4, "explain-no-limit/rows_examined": 4,
				"explain-no-limit/buffers": 4, "explain-no-limit/seq_scans": 4, "explain-no-limit/claim_time": 4}},
		{name: "explain in round 3 too",
			rounds: rounds(func(i int) (*report.SuiteResult, *report.SuiteResult) {
				if i == 2 {
					return res(drain(100), explain()), res(drain(102), explain())
				}
				return drainsOnly(i)
			}),
			lens: map[string]int{"baseline/throughput": 4, "explain-no-limit/rows_examined": 2, "explain-no-limit/claim_time": 2}},
		{name: "a drain missing from a later round",
			rounds: rounds(func(i int) (*report.SuiteResult, *report.SuiteResult) {
				if i == 3 {
					return res(), res()
				}
				return drainsOnly(i)
			}),
			wantErr: `round 4: the candidate did not measure throughput of scenario "baseline"`},
		{name: "the base ran explain in a later round, the candidate did not",
			rounds: rounds(func(i int) (*report.SuiteResult, *report.SuiteResult) {
				return res(drain(100), explain()), res(drain(102))
			}),
			wantErr: `round 2: the base ran scenario "explain-no-limit" and the candidate did not (a scenario run once per build runs in both builds' half of a round, or in neither)`},
		{name: "the candidate ran explain in a later round, the base did not",
			rounds: rounds(func(i int) (*report.SuiteResult, *report.SuiteResult) {
				return res(drain(100)), res(drain(102), explain())
			}),
			wantErr: `round 2: the base did not measure rows_examined of scenario "explain-no-limit" (does the base know this scenario?)`},
		{name: "a counted explain scenario (server_instructions is noisy) missing from a later round",
			rounds: func() []Round {
				rs := rounds(drainsOnly)
				rs[0].Base = res(drain(100), explain(metric(ServerInstructions, 2e9)))
				rs[0].Candidate = res(drain(101), explain(metric(ServerInstructions, 2e9)))
				return rs
			}(),
			wantErr: `round 2: the candidate did not measure rows_examined of scenario "explain-no-limit"`},
		{name: "the base's explain missing from round 1",
			rounds: func() []Round {
				rs := rounds(drainsOnly)
				rs[0].Base = res(drain(100))
				return rs
			}(),
			wantErr: `round 1: the base did not measure rows_examined of scenario "explain-no-limit"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Series(tc.rounds)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			got := map[string]int{}
			for _, r := range rows {
				require.Len(t, r.Base, len(r.Candidate), "%s/%s", r.Scenario, r.Metric)
				got[r.Scenario+"/"+r.Metric] = len(r.Base)
			}
			for k, n := range tc.lens {
				require.Equal(t, n, got[k], k)
			}
			judged := Judge(rows, Options{})
			for _, r := range judged {
				if r.Deterministic {
					require.Equal(t, NoChange, r.Verdict, "%+v", r)
				}
			}
		})
	}
}

func TestOncePerBuild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w       scenariofile.Workload
		counted bool
		want    bool
	}{
		{scenariofile.WorkloadExplain, false, true},
		{scenariofile.WorkloadExplain, true, false},
		{scenariofile.WorkloadDrain, false, false},
		{scenariofile.WorkloadCounters, false, false},
		{scenariofile.WorkloadSoak, false, false},
		{scenariofile.WorkloadScale, false, false}, // judges nothing
	} {
		require.Equal(t, tc.want, OncePerBuild(tc.w, tc.counted), "%s counted=%v", tc.w, tc.counted)
	}
}

// Calibration's rounds are the run's, not those of a scenario run once per
// build that comes first.
func TestCalibrateRoundsWithAScenarioRunOnce(t *testing.T) {
	t.Parallel()
	plan := Row{Scenario: "explain-no-limit", Metric: "rows_examined", Gated: true, Deterministic: true,
		Base: []float64{120}, Candidate: []float64{120}}
	rows := Judge([]Row{plan, throughputRow("baseline", noisy(30, 8, 1000, 0.04), noisy(31, 8, 1000, 0.04))}, Options{})
	require.Equal(t, 8, Calibrate([][]Row{rows, rows}).Rounds)
}

// What the gate judges, and how.
func TestGated(t *testing.T) {
	for _, tc := range []struct {
		workload             scenariofile.Workload
		metric               string
		gated, deterministic bool
	}{
		{scenariofile.WorkloadDrain, "throughput", true, false},
		{scenariofile.WorkloadDrain, GoCPUPerTask, true, false},
		{scenariofile.WorkloadDrain, ServerInstructions, true, false},
		{scenariofile.WorkloadDrain, "throughput_ratio", false, false},
		{scenariofile.WorkloadDrain, "claim_p99", false, false},
		{scenariofile.WorkloadCounters, "throughput", true, false},
		{scenariofile.WorkloadCounters, GoCPUPerTask, false, false},
		{scenariofile.WorkloadExplain, "buffers", true, true},
		{scenariofile.WorkloadExplain, "claim_time", false, false},
	} {
		gated, det := Gated(tc.workload, tc.metric)
		require.Equal(t, tc.gated, gated, "%s %s", tc.workload, tc.metric)
		require.Equal(t, tc.deterministic, det, "%s %s", tc.workload, tc.metric)
	}
}
