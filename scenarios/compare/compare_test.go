package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/scenarios/internal/fixture"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// cmpDrainScenario returns a drain scenario named name whose throughput
// samples are tput and whose claim_p99 samples are p99.
func cmpDrainScenario(name string, tput, p99 []float64) report.ScenarioResult {
	return report.ScenarioResult{
		Name: name, Workload: scenariofile.WorkloadDrain, File: "drain.hcl",
		Size: scenariofile.Size{Tasks: 200_000, Rounds: len(tput), Workers: 1, PoolSize: 4, BatchSize: 200},
		Metrics: []report.MetricResult{
			{Name: "throughput", Unit: scenariofile.UnitTasksPerSec, HigherIsBetter: true, Samples: tput, Value: stats.Median(tput), N: len(tput)},
			{Name: "claim_p99", Unit: scenariofile.UnitSeconds, Samples: p99, Value: stats.Median(p99), N: 1000 * len(p99)},
		},
	}
}

func cmpSuite(scs ...report.ScenarioResult) *report.SuiteResult {
	return &report.SuiteResult{
		FormatVersion: report.ResultFormatVersion,
		Environment:   report.Environment{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", NumCPU: 2, GOMAXPROCS: 2, Postgres: "PostgreSQL 17.2", PostgresSettings: map[string]string{"fsync": "on"}},
		Scenarios:     scs,
	}
}

// cmpThroughput compares two drains of one scenario with the given
// throughput samples.
func cmpThroughput(t *testing.T, old, new []float64) Row {
	t.Helper()
	p99 := []float64{0.001, 0.001, 0.001, 0.001, 0.001}
	c, err := Compare(cmpSuite(cmpDrainScenario("enabled", old, p99[:len(old)])), cmpSuite(cmpDrainScenario("enabled", new, p99[:len(new)])), Options{})
	require.NoError(t, err)
	require.Equal(t, "throughput", c.Rows[0].Metric)
	return c.Rows[0]
}

func TestCompareFlagsAClearSlowdown(t *testing.T) {
	t.Parallel()
	// 10% slower with 1% noise, 5 rounds each: always flagged.
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 10))
		row := cmpThroughput(t, fixture.Noisy(rng, 5, 10_000, 0.01), fixture.Noisy(rng, 5, 9_000, 0.01))
		require.True(t, row.Significant, "seed %d: p = %v", seed, row.P)
		require.True(t, row.Regression, "seed %d", seed)
		require.False(t, row.Improvement)
		require.InDelta(t, -0.10, row.Delta, 0.03)
		require.InDelta(t, 2.0/252, row.P, 1e-12, "complete separation")
	}
}

func TestCompareIgnoresNoise(t *testing.T) {
	t.Parallel()
	const seeds = 2000
	// With 5 rounds against 5 the exact test rejects at α = 0.05 only for
	// the 8 most extreme of the 252 assignments of ranks: 3.2% of the
	// time when nothing changed, half of it in each direction.
	//
	// 2% slower with 10% noise: not a regression 5 rounds can show. It is
	// flagged only when the test happens to be significant and the
	// medians happen to differ by more than the 5% tolerance (3.5% of
	// these seeds).
	flagged := 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 2))
		row := cmpThroughput(t, fixture.Noisy(rng, 5, 10_000, 0.10), fixture.Noisy(rng, 5, 9_800, 0.10))
		if row.Regression {
			flagged++
		}
		require.False(t, row.Regression && !row.Significant)
	}
	require.LessOrEqual(t, float64(flagged)/seeds, 0.05, "flagged %d of %d", flagged, seeds)

	// No change at all: flagged either way at most at the test's size.
	regressions, improvements := 0, 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 3))
		row := cmpThroughput(t, fixture.Noisy(rng, 5, 10_000, 0.10), fixture.Noisy(rng, 5, 10_000, 0.10))
		if row.Regression {
			regressions++
		}
		if row.Improvement {
			improvements++
		}
	}
	require.LessOrEqual(t, float64(regressions)/seeds, 0.025, "regressions %d of %d", regressions, seeds)
	require.LessOrEqual(t, float64(regressions+improvements)/seeds, 8.0/252+0.01, "flags %d of %d", regressions+improvements, seeds)
}

func TestCompareIdenticalRuns(t *testing.T) {
	t.Parallel()
	run := cmpSuite(
		cmpDrainScenario("baseline", []float64{10_100, 9_900, 10_000, 10_050, 9_950}, []float64{0.0010, 0.0011, 0.0009, 0.0010, 0.0010}),
		cmpDrainScenario("enabled", []float64{8_100, 7_900, 8_000, 8_050, 7_950}, []float64{0.0012, 0.0011, 0.0013, 0.0012, 0.0012}),
	)
	c, err := Compare(run, run, Options{})
	require.NoError(t, err)
	require.Zero(t, c.Regressions)
	require.Empty(t, c.Warnings)
	require.Len(t, c.Rows, 4)
	for _, r := range c.Rows {
		require.False(t, r.Significant)
		require.False(t, r.Regression || r.Improvement)
		require.Equal(t, "~", r.deltaText())
		require.InDelta(t, 1.0, r.P, 1e-12)
		require.Zero(t, r.Delta)
	}
	var text bytes.Buffer
	require.NoError(t, c.WriteText(&text))
	require.Contains(t, text.String(), "no regressions, no improvements")
}

func TestCompareTolerance(t *testing.T) {
	t.Parallel()
	// 3% slower with little noise: significant, but within the 5%
	// tolerance.
	row := cmpThroughput(t, []float64{10_000, 10_010, 9_990, 10_005, 9_995}, []float64{9_700, 9_710, 9_690, 9_705, 9_695})
	require.True(t, row.Significant)
	require.False(t, row.Regression)
	require.Equal(t, "within the 5% tolerance", row.Note)
	require.Equal(t, "-3.0%", row.deltaText())

	// With a 2% tolerance it is a regression.
	p99 := []float64{0.001, 0.001, 0.001, 0.001, 0.001}
	c, err := Compare(cmpSuite(cmpDrainScenario("enabled", []float64{10_000, 10_010, 9_990, 10_005, 9_995}, p99)),
		cmpSuite(cmpDrainScenario("enabled", []float64{9_700, 9_710, 9_690, 9_705, 9_695}, p99)), Options{Tolerance: 0.02})
	require.NoError(t, err)
	require.True(t, c.Rows[0].Regression)
	require.Equal(t, 1, c.Regressions)

	// Lower is better for latencies: 10% slower round trips regress.
	c, err = Compare(cmpSuite(cmpDrainScenario("enabled", []float64{1, 2, 3, 4, 5}, p99)),
		cmpSuite(cmpDrainScenario("enabled", []float64{1, 2, 3, 4, 5}, []float64{0.0011, 0.00111, 0.00109, 0.0011, 0.0011})), Options{})
	require.NoError(t, err)
	require.Equal(t, "claim_p99", c.Rows[1].Metric)
	require.True(t, c.Rows[1].Regression)
	require.InDelta(t, 0.10, c.Rows[1].Delta, 1e-9)
}

func TestCompareTooFewRounds(t *testing.T) {
	t.Parallel()
	// Two rounds each can never reach p < 0.05, however far apart.
	row := cmpThroughput(t, []float64{10_000, 10_100}, []float64{5_000, 5_100})
	require.False(t, row.Significant)
	require.False(t, row.Regression)
	require.Contains(t, row.Note, "too few rounds")
	require.InDelta(t, 1.0/3, row.P, 1e-12)
	require.Equal(t, "~", row.deltaText())
}

// cmpExplainScenario is an explain scenario measured once.
func cmpExplainScenario(seqScans, rows, claimTime float64) report.ScenarioResult {
	one := func(name string, u scenariofile.Unit, v float64) report.MetricResult {
		return report.MetricResult{Name: name, Unit: u, Samples: []float64{v}, Value: v, N: 1}
	}
	return report.ScenarioResult{
		Name: "plan", Workload: scenariofile.WorkloadExplain, File: "explain.hcl", Size: scenariofile.Size{Tasks: 100_000},
		Metrics: []report.MetricResult{
			one("seq_scans", scenariofile.UnitCount, seqScans),
			one("rows_examined", scenariofile.UnitRows, rows),
			one("claim_time", scenariofile.UnitSeconds, claimTime),
		},
	}
}

func TestCompareSingleSamples(t *testing.T) {
	t.Parallel()
	c, err := Compare(cmpSuite(cmpExplainScenario(0, 200, 0.0004)), cmpSuite(cmpExplainScenario(1, 208, 0.0009)), Options{})
	require.NoError(t, err)
	require.Len(t, c.Rows, 3)
	seq, rows, claim := c.Rows[0], c.Rows[1], c.Rows[2]

	require.True(t, seq.Regression, "a sequential scan appeared")
	require.True(t, math.IsInf(seq.Delta, 1))
	require.Equal(t, "single sample", seq.Note)
	require.True(t, math.IsNaN(seq.P))

	require.False(t, rows.Regression, "4% more rows is within the tolerance")
	require.Equal(t, "+4.0%", rows.deltaText())

	require.False(t, claim.Regression, "a single timing is never flagged")
	require.Contains(t, claim.Note, "not tested")
	require.Equal(t, 1, c.Regressions)

	c, err = Compare(cmpSuite(cmpExplainScenario(1, 200, 0.0004)), cmpSuite(cmpExplainScenario(0, 100, 0.0004)), Options{})
	require.NoError(t, err)
	require.True(t, c.Rows[0].Improvement)
	require.True(t, c.Rows[1].Improvement)
	require.Zero(t, c.Regressions)
}

func TestCompareRefusesDifferentRuns(t *testing.T) {
	t.Parallel()
	tp, p99 := []float64{1, 2, 3}, []float64{1, 2, 3}
	base := cmpSuite(cmpDrainScenario("baseline", tp, p99), cmpDrainScenario("enabled", tp, p99))

	_, err := Compare(base, cmpSuite(cmpDrainScenario("baseline", tp, p99), cmpDrainScenario("mixed", tp, p99)), Options{})
	require.ErrorContains(t, err, `"enabled" only in the old run`)
	require.ErrorContains(t, err, `"mixed" only in the new run`)

	smaller := cmpSuite(cmpDrainScenario("baseline", tp, p99), cmpDrainScenario("enabled", tp, p99))
	smaller.Scenarios[1].Size.Tasks = 20_000
	_, err = Compare(base, smaller, Options{})
	require.ErrorContains(t, err, `scenario "enabled" ran at a different size (tasks 200,000 old, 20,000 new)`)
	require.NotContains(t, err.Error(), `"baseline"`)

	quick := cmpSuite(cmpDrainScenario("baseline", tp, p99), cmpDrainScenario("enabled", tp, p99))
	quick.Quick = true
	quick.Scenarios[0].Size.Tasks = 20_000
	_, err = Compare(base, quick, Options{})
	require.ErrorContains(t, err, "the old run ran at full size and the new one at --quick sizes")
	require.ErrorContains(t, err, `scenario "baseline"`)

	require.Equal(t, "clients 64 old, 8 new, connections 8 old, 0 new",
		cmpSizeDiff(scenariofile.Size{Clients: 64, Connections: 8}, scenariofile.Size{Clients: 8}))

	// More rounds is more samples, not a different size.
	more := cmpSuite(cmpDrainScenario("baseline", []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5}), cmpDrainScenario("enabled", tp, p99))
	_, err = Compare(base, more, Options{})
	require.NoError(t, err)

	other := cmpSuite(cmpDrainScenario("baseline", tp, p99), cmpDrainScenario("enabled", tp, p99))
	other.Scenarios[1].Workload = scenariofile.WorkloadCounters
	_, err = Compare(base, other, Options{})
	require.ErrorContains(t, err, `scenario "enabled" is a drain workload in the old run and a counters one`)
}

// Runs from different machines are not judged: the rows show the changes,
// none is a regression, and the output says why, once.
func TestCompareDoesNotJudgeOtherMachines(t *testing.T) {
	t.Parallel()
	runs := cmpGoldenRuns(t)
	old, new := runs[0], runs[1]
	new.Environment.Postgres = "PostgreSQL 18.1"
	new.Environment.NumCPU = 8
	new.Environment.PostgresSettings = map[string]string{"fsync": "off", "synchronous_commit": "off"}
	new.Scenarios[0].Metrics = append(new.Scenarios[0].Metrics, report.MetricResult{Name: "slot_release", Unit: scenariofile.UnitSeconds, Samples: []float64{1e-5}, N: 1})
	c, err := Compare(old, new, Options{})
	require.NoError(t, err)
	require.Equal(t, []string{
		`the environments differ: PostgreSQL "PostgreSQL 17.2" in the old run, "PostgreSQL 18.1" in the new one`,
		`the environments differ: CPU count "2" in the old run, "8" in the new one`,
		`the environments differ: setting fsync "on" in the old run, "off" in the new one`,
		`the environments differ: setting synchronous_commit (unknown) in the old run, "off" in the new one`,
	}, c.NotJudged)
	require.Equal(t, []string{`scenario "baseline": metric slot_release is only in the new run`}, c.Warnings)
	require.Zero(t, c.Regressions, "a 12%% slower enabled on another machine is not judged")
	var text bytes.Buffer
	require.NoError(t, c.WriteText(&text))
	require.True(t, strings.HasPrefix(text.String(), "cannot judge: the environments differ: PostgreSQL"))
	require.Contains(t, text.String(), "Not judged: the two runs were made on different machines or under different loads (4 reasons)")
	require.Contains(t, text.String(), "pgseq bench ab --base PATH")
	require.Contains(t, text.String(), "not judged: -12.5%")
	require.Equal(t, 1, strings.Count(text.String(), "fsync"), "each reason is said once")

	// The same machine under a load twice as high per CPU: not judged either.
	runs = cmpGoldenRuns(t)
	runs[0].LoadBefore, runs[0].LoadAfter = 0.4, 0.6
	runs[1].LoadBefore, runs[1].LoadAfter = 6.95, 8.30
	c, err = Compare(runs[0], runs[1], Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"the hosts' loads differ: 0.40 → 0.60 in the old run, 6.95 → 8.30 in the new one (1-minute averages, 2 CPUs)"}, c.NotJudged)
	require.Zero(t, c.Regressions)
}

func TestReadSuiteResult(t *testing.T) {
	t.Parallel()
	run := cmpGoldenRuns(t)[0]
	b, err := json.Marshal(run)
	require.NoError(t, err)
	got, err := report.ReadSuiteResult(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, run.Scenarios[0].Metrics, got.Scenarios[0].Metrics)
	require.Equal(t, run.Environment, got.Environment)

	// A later minor version may add fields.
	_, err = report.ReadSuiteResult(strings.NewReader(`{"format_version": "1.7", "scenarios": [], "something_new": {"a": 1}}`))
	require.NoError(t, err)

	_, err = report.ReadSuiteResult(strings.NewReader(`{"format_version": "2.0", "scenarios": []}`))
	require.ErrorContains(t, err, `its format is "2.0" and this pgseq reads format 1.x`)
	_, err = report.ReadSuiteResult(strings.NewReader(`{"scenarios": []}`))
	require.ErrorContains(t, err, "no format_version: not a pgseq bench result")
	_, err = report.ReadSuiteResult(strings.NewReader(`{"format_version": "1.0", "scenarios": {}}`))
	require.ErrorContains(t, err, "reading the run's result (format 1.0)")
	_, err = report.ReadSuiteResult(strings.NewReader(`not json`))
	require.Error(t, err)
}

// cmpGoldenRuns are two runs of four scenarios: a regression, an
// improvement, noise, too few rounds and plan-shape changes.
func cmpGoldenRuns(t *testing.T) [2]*report.SuiteResult {
	t.Helper()
	mk := func(tpBase, tpEnabled, p99Enabled []float64, seqScans, rows float64, insert []float64, postgres string) *report.SuiteResult {
		r := cmpSuite(
			cmpDrainScenario("baseline", tpBase, []float64{0.00090, 0.00092, 0.00089, 0.00091, 0.00090}),
			cmpDrainScenario("enabled", tpEnabled, p99Enabled),
			cmpExplainScenario(seqScans, rows, 0.00042),
			report.ScenarioResult{
				Name: "hot-8", Workload: scenariofile.WorkloadCounters, File: "counters.hcl",
				Size:    scenariofile.Size{Rounds: 2, Clients: 8, Duration: time.Second},
				Metrics: []report.MetricResult{{Name: "throughput", Unit: scenariofile.UnitInsertsPerSec, HigherIsBetter: true, Samples: insert, Value: stats.Median(insert), N: 2}},
			},
		)
		r.Scenarios[1].Against = "baseline"
		r.Scenarios[1].Metrics = append(r.Scenarios[1].Metrics, report.MetricResult{
			Name: "throughput_ratio", Unit: scenariofile.UnitRatio, HigherIsBetter: true,
			Samples: []float64{tpEnabled[0] / tpBase[0], tpEnabled[1] / tpBase[1], tpEnabled[2] / tpBase[2], tpEnabled[3] / tpBase[3], tpEnabled[4] / tpBase[4]},
		})
		r.Environment.Postgres = postgres
		return r
	}
	old := mk([]float64{20_100, 19_900, 20_000, 20_200, 19_800}, []float64{16_000, 16_100, 15_900, 16_050, 15_950},
		[]float64{0.00120, 0.00118, 0.00122, 0.00121, 0.00119}, 0, 200, []float64{5_000, 5_100}, "PostgreSQL 17.2")
	new := mk([]float64{20_050, 19_950, 20_300, 19_700, 20_100}, []float64{14_000, 14_100, 13_900, 14_050, 13_950},
		[]float64{0.00090, 0.00089, 0.00091, 0.00092, 0.00090}, 1, 200, []float64{6_000, 6_100}, "PostgreSQL 17.2")
	return [2]*report.SuiteResult{old, new}
}

func TestCompareGolden(t *testing.T) {
	t.Parallel()
	runs := cmpGoldenRuns(t)
	c, err := Compare(runs[0], runs[1], Options{})
	require.NoError(t, err)
	require.Equal(t, 3, c.Regressions, "enabled throughput and ratio, and the sequential scan")

	var text, md bytes.Buffer
	require.NoError(t, c.WriteText(&text))
	require.NoError(t, c.WriteMarkdown(&md))
	golden.Check(t, filepath.Join("testdata", "compare.txt"), text.String())
	golden.Check(t, filepath.Join("testdata", "compare.md"), md.String())
}
