package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// writeDrainResult writes a result file of one drain scenario whose
// throughput samples are tput, with the throughput's higher_is_better as
// given, and returns its path.
func writeDrainResult(t *testing.T, name string, tput float64, higherIsBetter bool) string {
	t.Helper()
	samples := []float64{tput, tput, tput, tput, tput}
	r := &report.SuiteResult{
		FormatVersion: report.ResultFormatVersion,
		Scenarios: []report.ScenarioResult{{
			Name: "enabled", Workload: scenariofile.WorkloadDrain, File: "drain.hcl",
			Size: scenariofile.Size{Tasks: 200_000, Rounds: 5, Workers: 1, PoolSize: 4, BatchSize: 200},
			Metrics: []report.MetricResult{{
				Name: "throughput", Unit: scenariofile.UnitTasksPerSec, HigherIsBetter: higherIsBetter,
				Samples: samples, Value: tput, N: len(samples),
			}},
		}},
	}
	var b strings.Builder
	require.NoError(t, r.WriteJSON(&b))
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// bench compare takes a metric's direction from the base run and the
// metric's definition: a candidate file that calls throughput
// lower-is-better is refused (exit 1, naming the metric), not reported as
// improving 5,331 → 0 tasks/s; an honest one is a regression (exit 4).
func TestBenchCompareRefusesACandidateThatFlipsADirection(t *testing.T) {
	t.Parallel()
	base := writeDrainResult(t, "base.json", 5331, true)
	cases := []struct {
		name      string
		candidate string
		code      int
		want      string
	}{
		{"flipped", writeDrainResult(t, "flipped.json", 0, false), exitError,
			`metric throughput is higher-is-better in the old run and lower-is-better in the new one`},
		{"honest", writeDrainResult(t, "honest.json", 0, true), exitThreshold, "throughput"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runOffline("bench", "compare", base, c.candidate)
			require.Equal(t, c.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stdout+r.stderr, c.want)
			require.NotContains(t, r.stdout, "1 improvement", "5,331 → 0 tasks/s is no improvement")
		})
	}
}
