package compare

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// cmpCraftedFile writes r as a result file and reads it back, as bench
// compare reads the files it is given.
func cmpCraftedFile(t *testing.T, r *report.SuiteResult) *report.SuiteResult {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	read, err := report.ReadSuiteResult(&b)
	require.NoError(t, err)
	return read
}

// cmpWithDirections is a drain scenario whose throughput falls from 5,331
// to 0 tasks/s and whose claim_p99 stays put, each metric's
// higher_is_better as given, plus a metric pgseq does not define
// ("custom") that rises from 1 to 2.
func cmpWithDirections(tputHigher, p99Higher, customHigher bool, tput float64, custom float64) *report.SuiteResult {
	s := cmpDrainScenario("enabled", []float64{tput, tput, tput, tput, tput}, []float64{0.001, 0.001, 0.001, 0.001, 0.001})
	s.Metrics[0].HigherIsBetter = tputHigher
	s.Metrics[1].HigherIsBetter = p99Higher
	cs := []float64{custom, custom, custom, custom, custom}
	s.Metrics = append(s.Metrics, report.MetricResult{Name: "custom", Unit: scenariofile.UnitCount, HigherIsBetter: customHigher, Samples: cs, Value: custom, N: 5})
	return cmpSuite(s)
}

// The direction of a metric never comes from the new run's file alone: a
// candidate that calls throughput lower-is-better does not turn 5,331 → 0
// into an improvement.
func TestCompareDirectionIsNotTheCandidates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		old, new              *report.SuiteResult
		wantErr               []string // the comparison is refused, naming the metric
		wantThroughputRegress bool
		wantCustomImproves    bool
		wantWarning           string
	}{
		{
			name:    "candidate flips throughput",
			old:     cmpWithDirections(true, false, true, 5331, 1),
			new:     cmpWithDirections(false, false, true, 0, 2),
			wantErr: []string{`scenario "enabled": metric throughput is higher-is-better in the old run and lower-is-better in the new one`, "this pgseq defines it as higher-is-better"},
		},
		{
			name:    "candidate flips a latency",
			old:     cmpWithDirections(true, false, true, 5331, 1),
			new:     cmpWithDirections(true, true, true, 5331, 2),
			wantErr: []string{`metric claim_p99 is lower-is-better in the old run and higher-is-better in the new one`},
		},
		{
			name:    "candidate flips a metric pgseq does not define",
			old:     cmpWithDirections(true, false, true, 5331, 1),
			new:     cmpWithDirections(true, false, false, 5331, 2),
			wantErr: []string{`metric custom is higher-is-better in the old run and lower-is-better in the new one`, "this pgseq does not define it"},
		},
		{
			name:                  "both files flip throughput: the definition wins",
			old:                   cmpWithDirections(false, false, true, 5331, 1),
			new:                   cmpWithDirections(false, false, true, 0, 1),
			wantThroughputRegress: true,
			wantWarning:           `scenario "enabled": metric throughput is lower-is-better in both runs, but this pgseq defines it as higher-is-better, which the comparison uses`,
		},
		{
			name:                  "honest files",
			old:                   cmpWithDirections(true, false, true, 5331, 1),
			new:                   cmpWithDirections(true, false, true, 0, 2),
			wantThroughputRegress: true,
			wantCustomImproves:    true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compare(cmpCraftedFile(t, c.old), cmpCraftedFile(t, c.new), Options{})
			if len(c.wantErr) > 0 {
				require.Error(t, err)
				for _, w := range c.wantErr {
					require.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			rows := map[string]Row{}
			for _, r := range got.Rows {
				rows[r.Metric] = r
			}
			tput := rows["throughput"]
			require.True(t, tput.HigherIsBetter)
			require.Equal(t, c.wantThroughputRegress, tput.Regression)
			require.False(t, tput.Improvement, "5,331 → 0 tasks/s is no improvement")
			require.Equal(t, c.wantCustomImproves, rows["custom"].Improvement)
			if c.wantWarning != "" {
				require.Contains(t, got.Warnings, c.wantWarning)
			}
			if c.wantThroughputRegress {
				require.Equal(t, 1, got.Regressions)
			}
		})
	}
}
