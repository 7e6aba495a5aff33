package scenarios

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/charts"
	"github.com/pgseq/pgseq/scenarios/internal/fixture"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// The level of a rank-based interval over n rounds is computed once
// (stats.NewRatio) and printed one way everywhere: the verdict's reason, the
// suite's header and tables, the measured column of bench run and bench ab,
// the drain report, the charts' notes. 5 rounds gave "the 94% interval" in
// the reason, "93%" in the chart and "93.8%" in the tables.
func TestReportsPrintTheIntervalLevelOneWay(t *testing.T) {
	t.Parallel()
	percent := regexp.MustCompile(`[0-9.]+%`)
	for _, tc := range []struct {
		rounds int
		want   string
	}{
		{2, "50.0%"},
		{3, "75.0%"},
		{4, "87.5%"},
		{5, "93.8%"},
		{6, "96.9%"},
		{8, "99.2%"},
		{9, "96.1%"},
		{20, "95.9%"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			// Ratios 0.80, 0.81, …: the median is the bound, so the
			// interval straddles it.
			ratios := make([]float64, tc.rounds)
			for i := range ratios {
				ratios[i] = 0.80 + 0.01*float64(i)
			}
			m := report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput_ratio", ratios)
			require.Equal(t, tc.want, stats.FormatLevel(m.Level))
			s := fixture.Judged(scenariofile.Scenario{Name: "enabled", Workload: scenariofile.WorkloadDrain, Against: "baseline", Size: scenariofile.Size{Rounds: tc.rounds},
				Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput_ratio", m.Value)}}, m)
			require.Equal(t, report.StatusInconclusive, s.Thresholds[0].Status)
			var md bytes.Buffer
			require.NoError(t, (&report.SuiteResult{Scenarios: []report.ScenarioResult{s}}).WriteMarkdown(&md, nil))
			r := stats.NewRatio(ratios)
			for name, text := range map[string]string{
				"reason":   s.Thresholds[0].Reason,
				"measured": report.FormatMeasured(s, s.Thresholds[0]),
				"markdown": md.String(),
				"chart":    charts.IntervalNote([]*report.MetricResult{&m}),
				"drain":    ratioLine(&r),
			} {
				levels := percent.FindAllString(text, -1)
				require.NotEmpty(t, levels, "%s: %s", name, text)
				for _, l := range levels {
					require.Equal(t, tc.want, l, "%s: %s", name, text)
				}
			}
		})
	}
}
