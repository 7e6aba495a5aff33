package report_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/scenarios/internal/fixture"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// reportTestRun is a judged run with thresholds of every outcome: drain
// scenarios of 5 rounds (and one of a single round), a counters scenario
// of 9, so that its intervals have two levels (93.8% and 96.1%).
func reportTestRun() *report.SuiteResult {
	drain := scenariofile.Size{Tasks: 20_000, Rounds: 5, Workers: 1, PoolSize: 4, BatchSize: 200}
	counters := scenariofile.Size{Rounds: 9, Clients: 64, Duration: time.Second}
	running := report.NewMetricResult(scenariofile.WorkloadDrain, "running_max")
	running.Value, running.N = 10, 1217
	runningMax := 10.0
	scs := []report.ScenarioResult{
		fixture.Judged(scenariofile.Scenario{Name: "baseline", Workload: scenariofile.WorkloadDrain, Size: drain,
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput", 20_000)}},
			report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput", []float64{21_000, 20_500, 22_300, 20_100, 21_400})),
		fixture.Judged(scenariofile.Scenario{Name: "many", Workload: scenariofile.WorkloadDrain, Against: "baseline", Size: drain,
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput_ratio", 0.80)}},
			report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput", []float64{15_500, 17_000, 15_400, 15_700, 17_300}),
			report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput_ratio", []float64{0.74, 0.83, 0.69, 0.78, 0.81})),
		fixture.Judged(scenariofile.Scenario{Name: "once", Workload: scenariofile.WorkloadDrain, Against: "baseline", Size: scenariofile.Size{Tasks: 20_000, Rounds: 1, Workers: 1, PoolSize: 4, BatchSize: 200},
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput_ratio", 0.85)}},
			report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput_ratio", []float64{0.91})),
		fixture.Judged(scenariofile.Scenario{Name: "binding", Workload: scenariofile.WorkloadDrain, Size: drain,
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("ideal_share", 0.90), {Metric: "running_max", Max: &runningMax}}},
			report.PerRoundMetric(scenariofile.WorkloadDrain, "ideal_share", []float64{0.81, 0.83, 0.80, 0.827, 0.79}), running),
		fixture.Judged(scenariofile.Scenario{Name: "hot-64", Workload: scenariofile.WorkloadCounters, Against: "hot-8", Size: counters,
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput_ratio", 0.80)}},
			report.PerRoundMetric(scenariofile.WorkloadCounters, "throughput_ratio", []float64{0.62, 0.88, 0.71, 0.79, 0.84, 0.66, 0.9, 0.75, 0.81})),
	}
	return &report.SuiteResult{
		FormatVersion: report.ResultFormatVersion,
		StartedAt:     time.Date(2026, 11, 23, 14, 15, 41, 0, time.UTC),
		Seconds:       42,
		Environment:   report.Environment{Postgres: "PostgreSQL 17.4", NumCPU: 2, CPUModel: "test CPU", GoVersion: "go1.26.8", GOMAXPROCS: 2},
		Scenarios:     scs,
		Verdict:       report.Verdict(scs),
	}
}

// The suite's Markdown: the verdict, the thresholds (the header names the
// intervals' levels, the table and the reasons print them as it does),
// each scenario's metrics.
func TestSuiteMarkdownGolden(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	require.NoError(t, reportTestRun().WriteMarkdown(&md, nil))
	golden.Check(t, filepath.Join("testdata", "run.md"), md.String())
}

// A counters scenario's size names the connections its clients share,
// when they share some.
func TestSizeLineCounters(t *testing.T) {
	t.Parallel()
	require.Equal(t, "8 clients, 6 rounds, 1s per run",
		report.SizeLine(scenariofile.WorkloadCounters, scenariofile.Size{Clients: 8, Rounds: 6, Duration: time.Second}))
	require.Equal(t, "64 clients sharing 8 connections, 6 rounds, 1s per run",
		report.SizeLine(scenariofile.WorkloadCounters, scenariofile.Size{Clients: 64, Connections: 8, Rounds: 6, Duration: time.Second}))
}
