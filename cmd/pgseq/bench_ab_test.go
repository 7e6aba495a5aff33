package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testBinary is this test binary, which runs as pgseq when started by a
// test (TestMain).
func testBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return self
}

// bench ab of a build against itself, end to end on the real database:
// both builds run every round, in ABBA order, nothing regresses, and the
// report says what was judged.
func TestBenchABOfTheSameBuild(t *testing.T) {
	c := newCLI(t)
	out := t.TempDir()
	// Floors no noise reaches: this test checks the mechanics; an A/A
	// run of 3 tiny rounds may well read as significant (α = 0.05).
	cal := filepath.Join(t.TempDir(), "calibration.json")
	require.NoError(t, os.WriteFile(cal, []byte(`{"format_version": "1.0", "metrics": [
		{"scenario": "base", "metric": "throughput", "floor": 10},
		{"scenario": "limited", "metric": "throughput", "floor": 10},
		{"scenario": "base", "metric": "go_cpu_per_task", "floor": 10},
		{"scenario": "limited", "metric": "go_cpu_per_task", "floor": 10}]}`), 0o644))
	r := c.run("bench", "ab", "--base", testBinary(t), "--rounds", "3", "--out", out, "--calibration", cal,
		writeScenarios(t, tinyDrains(`threshold "throughput_ratio" { min = 0.01 }`)))
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Verdict: no regression: 4 metrics judged over 3 rounds")
	require.Contains(t, r.stdout, "in the order ABBA BA")
	require.Regexp(t, `base\s+throughput\s+[0-9,]+ tasks/s\s+[0-9,]+ tasks/s`, r.stdout)
	require.Contains(t, r.stdout, "Acceptance thresholds on the candidate's rounds:")
	for _, f := range []string{"ab.json", "ab.md", "rounds/1-base/run.json", "rounds/1-candidate/run.json", "rounds/3-candidate/log.txt"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	// A round's invocation draws no charts: bench ab reads its run.json only.
	require.NoDirExists(t, filepath.Join(out, "rounds", "1-candidate", "charts"))
	logText, err := os.ReadFile(filepath.Join(out, "rounds", "1-candidate", "log.txt"))
	require.NoError(t, err)
	require.NotContains(t, string(logText), "charts/")
	var rep struct {
		Order []string `json:"order"`
		Rows  []struct {
			Scenario, Metric string
			Gated            bool
			Base, Candidate  []float64
		} `json:"rows"`
	}
	b, err := os.ReadFile(filepath.Join(out, "ab.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Equal(t, []string{"base", "candidate", "candidate"}, rep.Order)
	for _, row := range rep.Rows {
		require.Len(t, row.Base, 3, row.Metric)
		require.Len(t, row.Candidate, 3, row.Metric)
	}
	md, err := os.ReadFile(filepath.Join(out, "ab.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| limited | throughput |")
	require.Contains(t, string(md), "### Acceptance thresholds")
}

// A base that cannot run the scenarios (an old pgseq without bench run
// --rounds, here a script that says so) is an error naming the base and
// quoting its output, exit 1; so are a missing --base and one that is not
// a program.
func TestBenchABBaseErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "pgseq-old")
	require.NoError(t, os.WriteFile(old, []byte(`#!/bin/sh
if [ "$1" = version ]; then echo "pgseq v0.3.0"; exit 0; fi
echo "Error: unknown flag: --rounds" >&2
exit 1
`), 0o755))
	scen := writeScenarios(t, tinyDrains(""))

	r := c.run("bench", "ab", "--base", old, "--rounds", "3", "--out", t.TempDir(), scen)
	require.Equal(t, exitError, r.code, r.stderr)
	require.Contains(t, r.stderr, "the base pgseq "+old+" (pgseq v0.3.0) could not run the scenarios")
	require.Contains(t, r.stderr, "unknown flag: --rounds")

	r = c.run("bench", "ab", "--rounds", "3", scen)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "bench ab needs --base PATH")

	r = c.run("bench", "ab", "--base", dir, scen)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "not an executable file")

	r = c.run("bench", "ab", "--base", old, "--rounds", "2", scen)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "invalid --rounds 2: the paired test needs at least 3 rounds")

	r = c.run("bench", "ab", "--base", old, "--calibration", filepath.Join(dir, "nope.json"), scen)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "reading --calibration")
}

// bench ab --instructions, end to end: a throw-away server under
// cachegrind, one invocation per scenario, the server's instructions judged
// and the throughputs only shown, with where the instructions went (each
// round's server_functions.tsv, the report's "Where the instructions
// changed"); a base that does not run counted (one
// that ignores PGSEQ_BENCH_COUNTED, as a pgseq before this one) is an
// error; --fail-on-threshold cannot judge times under valgrind.
func TestBenchABInstructions(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Smaller than tinyDrains: every run of a counted drain starts its
	// server processes under valgrind (seconds each), and a warm-up of one
	// task only opens the workers' connections, as in
	// scenarios/instructions/.
	scen := writeScenarios(t, `
scenario "base" {
  workload = "drain"
  size {
    tasks      = 200
    warmup     = 1
    batch_size = 50
  }
  types { count = 1 }
}
`)
	// A floor no noise reaches: this test checks the mechanics.
	cal := filepath.Join(t.TempDir(), "calibration.json")
	require.NoError(t, os.WriteFile(cal, []byte(`{"format_version": "1.0", "metrics": [
		{"scenario": "base", "metric": "server_instructions", "floor": 10}]}`), 0o644))

	out := t.TempDir()
	r := c.run("bench", "ab", "--instructions", "--base", testBinary(t), "--rounds", "3", "--scenario", "base",
		"--calibration", cal, "--out", out, scen)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "counted: the server ran under valgrind's cachegrind")
	require.Regexp(t, `base\s+server_instructions\s+[0-9.]+ [GM] instructions\s+[0-9.]+ [GM] instructions`, r.stdout)
	require.Contains(t, r.stdout, "Verdict: no regression: 1 metrics judged over 3 rounds")
	require.NotContains(t, r.stdout, "Acceptance thresholds on the candidate's rounds")
	require.Contains(t, r.stdout, "Where the instructions changed")
	for _, f := range []string{"ab.json", "ab.md", "rounds/0-warm-up/base/run.json", "rounds/1-base/base/server_instructions.txt",
		"rounds/1-base/base/server_functions.tsv", "rounds/3-candidate/base/server_functions.tsv", "rounds/3-candidate/base/log.txt"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	// The functions beside a round's count sum to it.
	note, err := os.ReadFile(filepath.Join(out, "rounds/1-base/base/server_instructions.txt"))
	require.NoError(t, err)
	var total uint64
	_, err = fmt.Sscanf(string(note), "%d instructions", &total)
	require.NoError(t, err)
	tsv, err := os.ReadFile(filepath.Join(out, "rounds/1-base/base/server_functions.tsv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(tsv), "\n"), "\n")
	require.Equal(t, "function\tinstructions", lines[0])
	require.Greater(t, len(lines), 10, "the functions of a drain")
	var sum uint64
	for _, line := range lines[1:] {
		_, n, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		v, err := strconv.ParseUint(n, 10, 64)
		require.NoError(t, err, line)
		sum += v
	}
	require.Equal(t, total, sum, "server_functions.tsv sums to server_instructions.txt")
	md, err := os.ReadFile(filepath.Join(out, "ab.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "### Where the instructions changed")
	require.Contains(t, string(md), "**base**: base ")
	require.Contains(t, string(md), "| FUNCTION | BASE | CANDIDATE | CHANGE | OF BASE TOTAL |")
	var rep struct {
		Instructions bool `json:"instructions"`
		Rows         []struct {
			Metric          string
			Gated           bool
			Base, Candidate []float64
		} `json:"rows"`
		Functions []struct {
			Scenario  string
			Rounds    int
			Functions []struct{ Function string }
		} `json:"function_changes"`
	}
	b, err := os.ReadFile(filepath.Join(out, "ab.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.True(t, rep.Instructions)
	require.Len(t, rep.Functions, 1)
	require.Equal(t, "base", rep.Functions[0].Scenario)
	require.Equal(t, 3, rep.Functions[0].Rounds, "the judged rounds, not the warm-up")
	require.NotEmpty(t, rep.Functions[0].Functions, "two runs of a drain differ in some function")
	t.Logf("where the instructions changed: %+v", rep.Functions[0].Functions)
	gated := map[string]bool{}
	for _, row := range rep.Rows {
		gated[row.Metric] = row.Gated
		if row.Metric == "server_instructions" {
			for i := range row.Base {
				require.Greater(t, row.Base[i], 1e8, "a run's count")
				// These tiny drains are mostly the schema's setup; their
				// counts were seen 4% apart within a round (the 20,000-task
				// baseline of scenarios/instructions: 0.3%).
				t.Logf("round %d: base %.0f, candidate %.0f instructions", i+1, row.Base[i], row.Candidate[i])
				require.InDelta(t, 1, row.Candidate[i]/row.Base[i], 0.1, "the same build's counts")
			}
		}
	}
	require.Equal(t, map[string]bool{"server_instructions": true, "throughput": false}, map[string]bool{
		"server_instructions": gated["server_instructions"], "throughput": gated["throughput"]})

	// A base that does not run counted.
	old := filepath.Join(t.TempDir(), "pgseq-old")
	require.NoError(t, os.WriteFile(old, []byte("#!/bin/sh\nunset "+countedEnv+"\nexec "+testBinary(t)+` "$@"`+"\n"), 0o755))
	r = c.run("bench", "ab", "--instructions", "--base", old, "--rounds", "3", "--scenario", "base", "--out", t.TempDir(), scen)
	require.Equal(t, exitError, r.code, r.stderr)
	require.Contains(t, r.stderr, "cannot run counted")

	r = c.run("bench", "ab", "--instructions", "--fail-on-threshold", "--base", old, scen)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "--fail-on-threshold judges times")
}

// The explain scenarios run once per build: both builds run them in the
// first round, and the later rounds' invocations name the other scenarios
// (--scenario limited pulls in base, which it is measured against); the
// report says so, the plan's rows hold round 1's values, and the
// thresholds are judged on that round. Picking only explain scenarios runs
// one round.
func TestBenchABRunsExplainOncePerBuild(t *testing.T) {
	c := newCLI(t)
	scen := writeScenarios(t, tinyDrains("")+`
scenario "plans" {
  workload = "explain"
  size { tasks = 5000 }
  types {
    count   = 4
    limited = 1
    limit   = 10
  }
  explain { batch = 20 }
  threshold "seq_scans" { max = 0 }
}
`)
	cal := filepath.Join(t.TempDir(), "calibration.json")
	require.NoError(t, os.WriteFile(cal, []byte(`{"format_version": "1.0", "metrics": [
		{"scenario": "base", "metric": "throughput", "floor": 10},
		{"scenario": "limited", "metric": "throughput", "floor": 10},
		{"scenario": "base", "metric": "go_cpu_per_task", "floor": 10},
		{"scenario": "limited", "metric": "go_cpu_per_task", "floor": 10}]}`), 0o644))
	out := t.TempDir()
	r := c.run("bench", "ab", "--base", testBinary(t), "--rounds", "3", "--scenario", "limited,plans",
		"--out", out, "--calibration", cal, scen)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "once per build (round 1 only; their plans' counts are the same every run): plans")
	require.Contains(t, r.stdout, "once per build (round 1 only; their plans' counts are the same every run): plans")
	require.Contains(t, r.stdout, "Verdict: no regression: 7 metrics judged over 3 rounds")

	// Each invocation's command and scenarios.
	for _, round := range []string{"1-base", "1-candidate", "2-candidate", "2-base", "3-candidate", "3-base"} {
		b, err := os.ReadFile(filepath.Join(out, "rounds", round, "run.json"))
		require.NoError(t, err, round)
		var run struct {
			Command   []string
			Scenarios []struct{ Name string }
		}
		require.NoError(t, json.Unmarshal(b, &run), round)
		var names []string
		for _, s := range run.Scenarios {
			names = append(names, s.Name)
		}
		args := strings.Join(run.Command, " ")
		if strings.HasPrefix(round, "1-") {
			require.Equal(t, []string{"base", "limited", "plans"}, names, round)
			require.Contains(t, args, "--scenario limited --scenario plans", round)
			continue
		}
		require.Equal(t, []string{"base", "limited"}, names, round)
		require.Contains(t, args, "--scenario base --scenario limited", round)
		require.NotContains(t, args, "plans", round)
	}

	var rep struct {
		OncePerBuild []string `json:"once_per_build"`
		Rows         []struct {
			Scenario, Metric string
			Base, Candidate  []float64
		} `json:"rows"`
		Thresholds struct {
			Scenarios []struct {
				Name       string
				Thresholds []struct{ Metric, Status string }
			}
		} `json:"candidate_thresholds"`
	}
	b, err := os.ReadFile(filepath.Join(out, "ab.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Equal(t, []string{"plans"}, rep.OncePerBuild)
	for _, row := range rep.Rows {
		n := 3
		if row.Scenario == "plans" {
			n = 1
		}
		require.Len(t, row.Base, n, "%s %s", row.Scenario, row.Metric)
		require.Len(t, row.Candidate, n, "%s %s", row.Scenario, row.Metric)
	}
	judged := map[string]string{}
	for _, s := range rep.Thresholds.Scenarios {
		for _, th := range s.Thresholds {
			judged[s.Name+" "+th.Metric] = th.Status
		}
	}
	require.Equal(t, "MET", judged["plans seq_scans"], "the thresholds of a scenario run once: %v", judged)
	md, err := os.ReadFile(filepath.Join(out, "ab.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "Run once per build, in round 1 only: `plans`.")

	// Only explain scenarios: one round.
	out = t.TempDir()
	r = c.run("bench", "ab", "--base", testBinary(t), "--rounds", "3", "--scenario", "plans", "--out", out, scen)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "every scenario picked runs once per build: 1 round instead of 3")
	require.Contains(t, r.stdout, "Verdict: no regression: 3 metrics judged over 1 round")
	require.FileExists(t, filepath.Join(out, "rounds", "1-candidate", "run.json"))
	require.NoDirExists(t, filepath.Join(out, "rounds", "2-candidate"))
}
