package compare

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

func TestWriteGoBench(t *testing.T) {
	t.Parallel()
	run := cmpGoldenRuns(t)[1]
	run.StartedAt = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	run.Environment.CPUModel = "AMD EPYC 7B13"
	run.Environment.Postgres = "PostgreSQL 17.4 on x86_64-pc-linux-gnu, compiled by gcc 12.2.0, 64-bit"
	run.Environment.PostgresSettings["synchronous_commit"] = "on"
	run.Verdict = report.VerdictMissed
	run.Scenarios[3].Name = "hot scope-8" // a space, and a final -N benchstat would take for GOMAXPROCS

	var b bytes.Buffer
	require.NoError(t, WriteGoBench(&b, run))
	golden.Check(t, filepath.Join("testdata", "gobench.txt"), b.String())

	// Every line is a configuration line, a Unit line, a result line, a
	// comment or blank, as the format defines them.
	results := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "Unit "):
			f := strings.Fields(line)
			require.Len(t, f, map[bool]int{true: 4, false: 3}[strings.HasSuffix(line, "assume=exact")], line)
			require.Contains(t, []string{"better=higher", "better=lower"}, f[2], line)
		case strings.HasPrefix(line, "Benchmark"):
			f := strings.Fields(line)
			require.Equal(t, "1", f[1], "iterations: %s", line)
			require.Equal(t, 0, len(f[2:])%2, "value-unit pairs: %s", line)
			for i := 2; i < len(f); i += 2 {
				_, err := strconv.ParseFloat(f[i], 64)
				require.NoError(t, err, line)
			}
			require.NotRegexp(t, `-[0-9]+$`, f[0])
			results[f[0]]++
		default:
			key, value, ok := strings.Cut(line, ": ")
			require.True(t, ok, "configuration line: %q", line)
			require.NotEmpty(t, value)
			require.True(t, unicode.IsLower(rune(key[0])), line)
			require.False(t, strings.ContainsFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsUpper(r) }), line)
		}
	}
	require.Equal(t, map[string]int{
		"BenchmarkDrain/baseline": 5, "BenchmarkDrain/enabled": 5, "BenchmarkExplain/plan": 1, "BenchmarkCounters/hot_scope_8": 2,
	}, results)
}

func TestGoBenchUnits(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"throughput": "tasks/s", "throughput_ratio": "ratio", "claim_p99": "claim-p99-sec",
		"seq_scans": "seq-scans", "ideal_share": "ideal-share",
	} {
		m, ok := scenariofile.LookupMetric(scenariofile.WorkloadDrain, name)
		if !ok {
			m, ok = scenariofile.LookupMetric(scenariofile.WorkloadExplain, name)
		}
		require.True(t, ok, name)
		require.Equal(t, want, goBenchUnit(&report.MetricResult{Name: m.Name, Unit: m.Unit}), name)
	}
	m, _ := scenariofile.LookupMetric(scenariofile.WorkloadCounters, "throughput")
	require.Equal(t, "inserts/s", goBenchUnit(&report.MetricResult{Name: m.Name, Unit: m.Unit}))
}
