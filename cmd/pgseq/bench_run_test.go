package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyScenarios is a drain pair and an explain scenario small enough for
// the test suite; threshold is the enabled scenario's throughput_ratio
// threshold block.
func tinyScenarios(threshold string) string {
	return tinyDrains(threshold) + `
scenario "plans" {
  workload = "explain"
  size { tasks = 50000 }
  types {
    count   = 4
    limited = 1
    limit   = 10
  }
  explain { batch = 20 }
  threshold "seq_scans"     { max = 0 }
  threshold "rows_examined" { max = 80 }
}
`
}

// tinyDrains is the two drain scenarios of tinyScenarios: a baseline and a
// limited variant with threshold.
func tinyDrains(threshold string) string {
	return `
scenario "base" {
  workload = "drain"
  size {
    tasks      = 600
    rounds     = 2
    warmup     = 100
    batch_size = 50
  }
  types { count = 1 }
}

scenario "limited" {
  workload = "drain"
  against  = "base"
  types {
    count   = 10
    limited = 10
    limit   = 5
  }
  threshold "running_max" { max = 5 }
  ` + threshold + `
}
`
}

func writeScenarios(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.hcl"), []byte(src), 0o644))
	return dir
}

// TestBenchRunVerdicts runs tiny scenarios end to end against the real
// database: met thresholds exit 0 and write every result file; an
// impossible threshold exits 4 and is named; compare of a run with itself
// finds nothing.
func TestBenchRunVerdicts(t *testing.T) {
	c := newCLI(t)
	out := t.TempDir()

	met := c.run("bench", "run", "--out", out, writeScenarios(t, tinyScenarios(`threshold "throughput_ratio" { min = 0.01 }`)))
	require.Equal(t, 0, met.code, "stdout:\n%s\nstderr:\n%s", met.stdout, met.stderr)
	require.Contains(t, met.stdout, "Verdict: MET")
	for _, f := range []string{"run.json", "run.md", "run.bench.txt", "charts/throughput-drain.png", "charts/ratio-drain.svg"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	plans, err := filepath.Glob(filepath.Join(out, "plans", "plans", "*-claim.json"))
	require.NoError(t, err)
	require.NotEmpty(t, plans, "the explain scenario's claim plans are stored")
	md, err := os.ReadFile(filepath.Join(out, "run.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| limited | `throughput_ratio` | ≥ 0.010× |")

	missed := c.run("bench", "run", "--out", "", writeScenarios(t, tinyDrains(`threshold "throughput_ratio" { min = 50 }`)))
	require.Equal(t, exitThreshold, missed.code, "stdout:\n%s\nstderr:\n%s", missed.stdout, missed.stderr)
	require.Regexp(t, `MISSED\s+limited\s+throughput_ratio\s+≥ 50\.000×`, missed.stdout)
	require.Contains(t, missed.stdout, "Verdict: MISSED")

	same := c.run("bench", "compare", filepath.Join(out, "run.json"), filepath.Join(out, "run.json"))
	require.Equal(t, 0, same.code, "stdout:\n%s\nstderr:\n%s", same.stdout, same.stderr)
	require.Contains(t, same.stdout, "~")
}

// TestBenchRunSoak runs a soak scenario of two seconds end to end: the
// verdict, the series in run.json, the timeline chart and the Markdown
// section.
func TestBenchRunSoak(t *testing.T) {
	c := newCLI(t)
	out := t.TempDir()
	res := c.run("bench", "run", "--out", out, writeScenarios(t, `
scenario "churn" {
  workload = "soak"
  size {
    duration  = "2s"
    rate      = 200
    pool_size = 2
  }
  queue "soak" {
    batch_size   = 20
    leader_lease = "1s"
    retention {
      completed = "0s"
    }
  }
  task "free" {
    queue = "soak"
  }
  task "capped" {
    queue       = "soak"
    concurrency = 5
  }
  threshold "throughput" {
    min = 1
  }
}
`))
	require.Equal(t, 0, res.code, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	require.Contains(t, res.stdout, "Verdict: MET")
	require.Contains(t, res.stderr, "soak churn 2s/2s  claim p50")
	for _, f := range []string{"run.json", "charts/timeline-soak.png", "charts/timeline-soak.svg"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	js, err := os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	require.Contains(t, string(js), `"soak": {`)
	md, err := os.ReadFile(filepath.Join(out, "run.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "**Over time.**")
}

// TestBenchRunBadScenarioFiles: mistakes in a scenario file are reported
// with their location, exit 1, and nothing runs.
func TestBenchRunBadScenarioFiles(t *testing.T) {
	c := newCLI(t)
	dir := writeScenarios(t, `
scenario "a" {
  workload = "drain"
  types { count = 1 }
  threshold "throughput_ration" { min = 0.9 }
}
`)
	res := c.run("bench", "run", "--out", "", dir)
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stderr, filepath.Join(dir, "tiny.hcl")+":5:")
	require.Contains(t, res.stderr, "throughput_ratio")
	require.Empty(t, strings.TrimSpace(res.stdout))

	unknown := c.run("bench", "run", "--scenario", "nope", "--out", "", writeScenarios(t, tinyScenarios("")))
	require.Equal(t, 1, unknown.code)
	require.Contains(t, unknown.stderr, `no scenario named "nope" (known: base, limited, plans)`)
}

// TestShippedScenarioFilesLoad: the scenarios/ directory docs/benchmarks.md runs
// parses without a diagnostic.
func TestShippedScenarioFilesLoad(t *testing.T) {
	c := newCLI(t)
	res := c.run("bench", "run", "--scenario", "no-such-scenario", "--out", "", filepath.Join("..", "..", "scenarios"))
	require.Equal(t, 1, res.code)
	require.Contains(t, res.stderr, `no scenario named "no-such-scenario"`)
	require.NotContains(t, res.stderr, "error:")
}
