package gate

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// The acceptance thresholds of bench ab, judged on the candidate's rounds
// merged, print the level of their intervals as bench run does: the
// measured column and the reason name the same level (5 rounds: 93.8%,
// where the reason said 94%).
func TestReportThresholdsPrintTheIntervalLevelOneWay(t *testing.T) {
	t.Parallel()
	minRatio := 0.80
	scs := []scenariofile.Scenario{{Name: "many", Workload: scenariofile.WorkloadDrain, Against: "baseline",
		Thresholds: []scenariofile.Threshold{{Metric: "throughput_ratio", Min: &minRatio}}}}
	var runs []*report.SuiteResult
	for _, ratio := range []float64{0.74, 0.83, 0.69, 0.78, 0.81} {
		runs = append(runs, &report.SuiteResult{Scenarios: []report.ScenarioResult{{
			Name: "many", Workload: scenariofile.WorkloadDrain, Against: "baseline",
			Metrics: []report.MetricResult{{Name: "throughput_ratio", Unit: scenariofile.UnitRatio, HigherIsBetter: true,
				Samples: []float64{ratio}, Value: ratio, N: 1}},
		}}})
	}
	merged, err := report.MergeRounds(scs, runs, nil)
	require.NoError(t, err)
	r := &Report{StartedAt: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Order: make([]Side, 5), Alpha: DefaultAlpha, Thresholds: merged}

	var md bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&md))
	_, section, ok := strings.Cut(md.String(), "### Acceptance thresholds")
	require.True(t, ok, md.String())
	require.Contains(t, section, "| INCONCLUSIVE | many | throughput_ratio | ≥ 0.800× | 0.780× [0.690× – 0.830× (93.8%)] (n=5) | the 93.8% interval 0.690× – 0.830× straddles the bound |")
	for _, level := range regexp.MustCompile(`[0-9.]+%`).FindAllString(section, -1) {
		require.Equal(t, "93.8%", level, section)
	}
}

// A report whose explain scenarios ran once per build says so, in the
// terminal and in ab.md; their rows hold round 1's values.
func TestReportOncePerBuildGolden(t *testing.T) {
	t.Parallel()
	rows := []Row{
		throughputRow("baseline", []float64{410, 395, 420, 402}, []float64{405, 399, 415, 400}),
		{Scenario: "baseline", Metric: "claim_p99", Unit: scenariofile.UnitSeconds,
			Base: []float64{0.004, 0.005, 0.004, 0.006}, Candidate: []float64{0.005, 0.004, 0.004, 0.005}},
	}
	for _, m := range []struct {
		name string
		unit scenariofile.Unit
		v    float64
	}{{"rows_examined", scenariofile.UnitRows, 100}, {"buffers", scenariofile.UnitBuffers, 412}, {"seq_scans", scenariofile.UnitCount, 0}, {"claim_time", scenariofile.UnitSeconds, 0.012}} {
		gated, det := Gated(scenariofile.WorkloadExplain, m.name)
		rows = append(rows, Row{Scenario: "explain-no-limit", Metric: m.name, Unit: m.unit, Gated: gated, Deterministic: det,
			Base: []float64{m.v}, Candidate: []float64{m.v}})
	}
	r := &Report{
		FormatVersion: ReportFormatVersion, StartedAt: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Command: []string{"pgseq", "bench", "ab", "--base", "/tmp/pgseq-base", "--quick", "scenarios/drain.hcl", "scenarios/explain.hcl"},
		Base:    Build{Path: "/tmp/pgseq-base", Version: "pgseq v0.9.0"}, Candidate: Build{Path: "/tmp/pgseq", Version: "pgseq v0.9.0-3-gabcdef"},
		Order: []Side{Base, Candidate, Candidate, Base}, Quick: true, OncePerBuild: []string{"explain-no-limit"},
		Environment: report.Environment{Postgres: "PostgreSQL 15.8 (Debian 15.8-0+deb12u1)", NumCPU: 2, CPUModel: "test CPU"},
		Loads:       []float64{3.1, 4.2, 5.3, 4.8, 3.9, 3.5, 3.3, 3.0}, Alpha: DefaultAlpha,
		Rows: Judge(rows, Options{}),
	}
	var text, md, js bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	require.NoError(t, r.WriteMarkdown(&md))
	require.NoError(t, r.WriteJSON(&js))
	require.Contains(t, js.String(), `"once_per_build": [
    "explain-no-limit"
  ]`)
	golden.Check(t, filepath.Join("testdata", "ab-once-per-build.txt"), text.String())
	golden.Check(t, filepath.Join("testdata", "ab-once-per-build.md"), md.String())
}
