package scenarios

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reportScenario is the result of sc with metrics ms, its thresholds
// judged.
func reportScenario(sc Scenario, ms ...MetricResult) ScenarioResult {
	r := ScenarioResult{Name: sc.Name, Workload: sc.Workload, Against: sc.Against, File: string(sc.Workload) + ".hcl", Size: sc.Size, Metrics: ms}
	r.Thresholds = judgeAll(sc, &r)
	return r
}

// reportMin is a threshold "at least min" on metric.
func reportMin(metric string, min float64) Threshold { return Threshold{Metric: metric, Min: &min} }

// reportTestRun is a judged run with thresholds of every outcome: drain
// scenarios of 5 rounds (and one of a single round), a counters scenario
// of 9, so that its intervals have two levels (93.8% and 96.1%).
func reportTestRun() *SuiteResult {
	drain := Size{Tasks: 20_000, Rounds: 5, Workers: 1, PoolSize: 4, BatchSize: 200}
	counters := Size{Rounds: 9, Clients: 64, Duration: time.Second}
	running := newMetricResult(WorkloadDrain, "running_max")
	running.Value, running.N = 10, 1217
	runningMax := 10.0
	scs := []ScenarioResult{
		reportScenario(Scenario{Name: "baseline", Workload: WorkloadDrain, Size: drain,
			Thresholds: []Threshold{reportMin("throughput", 20_000)}},
			perRoundMetric(WorkloadDrain, "throughput", []float64{21_000, 20_500, 22_300, 20_100, 21_400})),
		reportScenario(Scenario{Name: "many", Workload: WorkloadDrain, Against: "baseline", Size: drain,
			Thresholds: []Threshold{reportMin("throughput_ratio", 0.80)}},
			perRoundMetric(WorkloadDrain, "throughput", []float64{15_500, 17_000, 15_400, 15_700, 17_300}),
			perRoundMetric(WorkloadDrain, "throughput_ratio", []float64{0.74, 0.83, 0.69, 0.78, 0.81})),
		reportScenario(Scenario{Name: "once", Workload: WorkloadDrain, Against: "baseline", Size: Size{Tasks: 20_000, Rounds: 1, Workers: 1, PoolSize: 4, BatchSize: 200},
			Thresholds: []Threshold{reportMin("throughput_ratio", 0.85)}},
			perRoundMetric(WorkloadDrain, "throughput_ratio", []float64{0.91})),
		reportScenario(Scenario{Name: "binding", Workload: WorkloadDrain, Size: drain,
			Thresholds: []Threshold{reportMin("ideal_share", 0.90), {Metric: "running_max", Max: &runningMax}}},
			perRoundMetric(WorkloadDrain, "ideal_share", []float64{0.81, 0.83, 0.80, 0.827, 0.79}), running),
		reportScenario(Scenario{Name: "hot-64", Workload: WorkloadCounters, Against: "hot-8", Size: counters,
			Thresholds: []Threshold{reportMin("throughput_ratio", 0.80)}},
			perRoundMetric(WorkloadCounters, "throughput_ratio", []float64{0.62, 0.88, 0.71, 0.79, 0.84, 0.66, 0.9, 0.75, 0.81})),
	}
	return &SuiteResult{
		FormatVersion: ResultFormatVersion,
		StartedAt:     time.Date(2026, 11, 23, 14, 15, 41, 0, time.UTC),
		Seconds:       42,
		Environment:   Environment{Postgres: "PostgreSQL 17.4", NumCPU: 2, CPUModel: "test CPU", GoVersion: "go1.26.8", GOMAXPROCS: 2},
		Scenarios:     scs,
		Verdict:       verdict(scs),
	}
}

// The suite's Markdown: the verdict, the thresholds (the header names the
// intervals' levels, the table and the reasons print them as it does),
// each scenario's metrics.
func TestSuiteMarkdownGolden(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	require.NoError(t, reportTestRun().WriteMarkdown(&md, nil))
	checkGolden(t, "report", "run.md", md.Bytes())
}

// The level of a rank-based interval over n rounds is computed once
// (ratioStats) and printed one way everywhere: the verdict's reason, the
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
			m := perRoundMetric(WorkloadDrain, "throughput_ratio", ratios)
			require.Equal(t, tc.want, FormatLevel(m.Level))
			s := reportScenario(Scenario{Name: "enabled", Workload: WorkloadDrain, Against: "baseline", Size: Size{Rounds: tc.rounds},
				Thresholds: []Threshold{reportMin("throughput_ratio", m.Value)}}, m)
			require.Equal(t, StatusInconclusive, s.Thresholds[0].Status)
			var md bytes.Buffer
			require.NoError(t, (&SuiteResult{Scenarios: []ScenarioResult{s}}).WriteMarkdown(&md, nil))
			r := ratioStats(ratios)
			for name, text := range map[string]string{
				"reason":   s.Thresholds[0].Reason,
				"measured": FormatMeasured(s, s.Thresholds[0]),
				"markdown": md.String(),
				"chart":    chartIntervalNote([]*MetricResult{&m}),
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

// Intervals of several levels (rounds differ) are named by their range.
func TestReportFormatLevels(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", formatLevels(nil))
	require.Equal(t, "", formatLevels([]float64{0, 0}))
	require.Equal(t, "93.8%", formatLevels([]float64{0.9375, 0, 0.9375}))
	require.Equal(t, "75.0%–96.1%", formatLevels([]float64{0.9609, 0.75, 0.9375}))
	require.True(t, strings.HasPrefix(chartIntervalNote([]*MetricResult{
		{Samples: []float64{1, 2, 3}, Low: 1, High: 3, Level: 0.75},
		{Samples: []float64{1, 2, 3, 4, 5}, Low: 1, High: 5, Level: 0.9375},
	}), "median of 3–5 rounds; whiskers: min–max of the rounds (a 75.0%–93.8% confidence interval"))
}
