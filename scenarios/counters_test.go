package scenarios

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCountersSummary: per-round ratios pair the cases of the same round,
// targets become checks, and both renderings carry them.
func TestCountersSummary(t *testing.T) {
	rep := &CountersReport{Settings: CountersSettings{Rounds: 3, SmallRowsPerScope: 1000, LargeRowsPerScope: 100000, HotScopeRows: 10000},
		Environment: Environment{NumCPU: 2}}
	speed := map[CounterCase]float64{
		CasePlain: 1000, CaseAttached: 800, CaseHot1: 500, CaseHot8: 400, CaseHot64: 200, CaseHot64Pool8: 390,
		CaseHotLock8: 400, CaseHotLock64: 380,
		CaseTableSmall: 700, CaseLockSmall: 700, CaseTableLarge: 700, CaseLockLarge: 700,
	}
	for round := 1; round <= 3; round++ {
		for _, c := range counterCases {
			x := speed[c.name] * float64(round) // every case faster each round: ratios stay put
			rep.Runs = append(rep.Runs, CounterRun{
				Round: round, Case: c.name, InsertsPerSec: x, Inserts: int(x), Seconds: 1,
				Waits:     map[string]int{"Lock:advisory": 3, "idle": 1},
				latencies: []time.Duration{time.Millisecond, 2 * time.Millisecond},
			})
		}
	}
	rep.summarise()
	require.Len(t, rep.Cases, len(counterCases))
	require.InDelta(t, 0.8, rep.comparison(CaseAttached, CasePlain).Ratio.Median, 1e-9)
	require.InDelta(t, 0.5, rep.comparison(CaseHot64, CaseHot8).Ratio.Median, 1e-9)
	require.InDelta(t, 1, rep.comparison(CaseLockLarge, CaseLockSmall).Ratio.GeoMean, 1e-9)
	require.Equal(t, []Check{
		{Name: "attached counter vs plain bigserial (8 clients, 1,000 scopes)", Target: "ratio ≥ 0.70", Measured: "0.800 median, CI 0.800–0.800 (75.0%)", Met: true},
		{Name: "hot scope: 64 clients vs 8", Target: "ratio ≥ 0.80", Measured: "0.500 median, CI 0.500–0.500 (75.0%)", Met: false},
	}, rep.Checks)
	require.InDelta(t, 0.75, rep.caseSummary(CaseHot64).Waits["Lock:advisory"], 1e-9)

	var md, js bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	require.NoError(t, rep.WriteJSON(&js))
	for _, want := range []string{"## What limits one hot scope", "## Does advisory_lock degrade", "≥ 0.80: MISSED", "`Lock:advisory` 75%"} {
		require.True(t, strings.Contains(md.String(), want), "markdown lacks %q", want)
	}
	require.Contains(t, md.String(), "queues a scope's waiters first-come first-served")
	require.Contains(t, md.String(), "64 clients sharing 8 connections, 780 inserts/s at p50 latency 1.00 ms; vs 8 clients: 0.97")

	// Waiters on the row itself get the other explanation.
	rep.caseSummary(CaseHot64).Waits = map[string]float64{"Lock:tuple": 0.6, "Lock:transactionid": 0.4}
	md.Reset()
	require.NoError(t, rep.WriteMarkdown(&md))
	require.Contains(t, md.String(), "each commit wakes all the waiters")

	var back CountersReport
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, rep.Comparisons, back.Comparisons)
}
