package gate

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	merged, err := report.MergeRounds(scs, runs)
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
