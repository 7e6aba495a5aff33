package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/gate"
	"github.com/pgseq/pgseq/internal/servercount"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/spec"
)

// abDefaultRounds is bench ab's rounds when --rounds is not given
// (results/gate-calibration/ has what 8 rounds detect). The explain
// scenarios run in the first round only (gate.OncePerBuild); on a shared
// 2-core machine the shipped quick gate (drain and explain scenarios) then
// took 521 s, against 661 s when every round ran them, and 299–323 s on a
// faster one (results/gate-calibration/go-cpu/): at or above the 5-minute
// target.
const abDefaultRounds = 8

// abCountedRounds is the rounds of bench ab --instructions when --rounds is
// not given: counts vary by 1-3% where times vary by 10-20%, and 3 rounds
// find a 10% change with p < 0.001 (results/gate-calibration/instructions/).
const abCountedRounds = 3

// abConfig is one A/B run's settings.
type abConfig struct {
	base      string // the base pgseq binary
	candidate string // the candidate pgseq binary (this one)
	names     []string
	quick     bool
	rounds    int
	files     []string
	outDir    string // where the rounds' results go
	picked    []scenariofile.Scenario
	// instructions: count the server's instructions (a cluster under
	// cachegrind) instead of judging the machine's times.
	instructions bool
	// databaseURL, when set, is the database the invocations use (the
	// counted server's) instead of this command's.
	databaseURL string
}

func (a *app) benchABCommand() *cobra.Command {
	var (
		cfg             abConfig
		outDir          string
		calibrationFile string
		failOnThreshold bool
	)
	cmd := &cobra.Command{
		Use:   "ab --base PATH [--quick] [--scenario NAME]... [--rounds N] [--out DIR] [PATH...]",
		Short: "Judge this build against a base build, both run in turns on this machine",
		Long: `Runs the scenarios with the base pgseq (--base: a build of the merge-base)
and with this one, taking turns round by round (ABBA BAAB …) on the same
machine and database, and judges this build against the base of the same
rounds. Each round is one "pgseq bench run --rounds 1" of each build.
The explain scenarios run in the first round only, both builds: the
metrics judged of them (a plan's rows, buffers and scans) are the same
every run, so the later rounds run the other scenarios (--scenario). When
only explain scenarios are picked, bench ab runs that one round. With
--instructions every scenario runs every round: each one's
server_instructions is judged, and it varies from run to run.

A metric regressed when its change over the rounds is significant (paired
t-test on the rounds' ratios, Holm's correction over the metrics judged)
and larger than its noise floor: the largest change runs of one build
against itself produce ("pgseq bench calibrate" measures it; without
--calibration, 5%, and 5% for a plan's buffers and rows). Judged: every
scenario's throughput and the explain scenarios' plans; latencies and ratios
within a build's own run are shown beside them.

Acceptance thresholds (bench run's) are judged on the candidate's rounds and
reported; they fail the run only with --fail-on-threshold.

Writes to --out: ab.json, ab.md (for a pull request) and rounds/ (each
invocation's results and log; with --instructions, the server's count and
its functions' counts, server_functions.tsv, beside them: ab.md says
where the instructions changed).

Exit codes: 0 no regression; 4 a regression (or, with --fail-on-threshold,
a threshold missed or undecided); 1 an error, such as a base that cannot
run the scenarios.

  git worktree add /tmp/base "$(git merge-base origin/main HEAD)"
  (cd /tmp/base && go build -o /tmp/pgseq-base ./cmd/pgseq)
  pgseq bench ab --base /tmp/pgseq-base --quick scenarios/drain.hcl scenarios/explain.hcl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if cfg.instructions && !cmd.Flags().Changed("rounds") {
				cfg.rounds = abCountedRounds
			}
			if cfg.base == "" {
				return errors.New("bench ab needs --base PATH: a pgseq built from the commit to compare with, e.g. the merge-base (see pgseq bench ab --help)")
			}
			var cal *gate.Calibration
			if failOnThreshold && cfg.instructions {
				return errors.New("--fail-on-threshold judges times, which valgrind slows tens of times: it cannot be used with --instructions (run bench run or bench ab without --instructions for the thresholds)")
			}
			if calibrationFile != "" {
				f, err := os.Open(calibrationFile)
				if err != nil {
					return fmt.Errorf("reading --calibration: %w", err)
				}
				cal, err = gate.ReadCalibration(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", calibrationFile, err)
				}
			}
			cfg.files = args
			cfg.outDir = outDir
			if err := a.prepareAB(&cfg); err != nil {
				return err
			}
			rep, err := a.runAB(ctx, cfg, gate.Options{Calibration: cal, Counted: cfg.instructions})
			if err != nil {
				return err
			}
			rep.Calibration = calibrationFile
			if err := writeABReport(outDir, rep); err != nil {
				return err
			}
			if err := rep.WriteText(a.stdout); err != nil {
				return err
			}
			if rep.Thresholds != nil {
				met, missed, inconclusive := rep.Thresholds.Counts()
				fmt.Fprintf(a.stdout, "Acceptance thresholds on the candidate's rounds: %s (%d met, %d missed, %d inconclusive)%s.\n",
					rep.Thresholds.Verdict, met, missed, inconclusive, map[bool]string{true: "", false: "; they do not fail bench ab without --fail-on-threshold"}[failOnThreshold])
			}
			fmt.Fprintf(a.stdout, "\nWrote %s and %s.\n", filepath.Join(outDir, "ab.json"), filepath.Join(outDir, "ab.md"))
			if len(rep.Regressions()) > 0 || (failOnThreshold && rep.Thresholds != nil && rep.Thresholds.Verdict != report.VerdictMet) {
				return &exitCode{code: exitThreshold}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.base, "base", "", "the base pgseq binary to judge this build against (required)")
	f.StringSliceVar(&cfg.names, "scenario", nil, "run only these scenarios (and those they are measured against); repeat or separate with commas")
	f.BoolVar(&cfg.quick, "quick", false, "run every scenario at its quick size")
	f.IntVar(&cfg.rounds, "rounds", abDefaultRounds, "rounds: each build runs every scenario once per round, the explain scenarios in the first round only (default 3 with --instructions)")
	f.StringVar(&outDir, "out", filepath.Join("results", "ab"), "directory to write the report and the rounds to")
	f.StringVar(&calibrationFile, "calibration", "", "calibration.json from pgseq bench calibrate: the noise floors of this machine")
	f.BoolVar(&failOnThreshold, "fail-on-threshold", false, "also exit 4 when an acceptance threshold is missed or undecided on the candidate's rounds")
	f.BoolVar(&cfg.instructions, "instructions", false, "judge the instructions PostgreSQL executes (a throw-away server under valgrind's cachegrind) instead of throughput: a measure the machine's load does not move")
	return cmd
}

func (a *app) benchCalibrateCommand() *cobra.Command {
	var (
		cfg    abConfig
		runs   int
		outDir string
	)
	cmd := &cobra.Command{
		Use:   "calibrate [--runs 10] [--quick] [--scenario NAME]... [--rounds N] [--out DIR] [PATH...]",
		Short: "Measure this machine's noise: A/A runs of bench ab, and each metric's noise floor",
		Long: `Runs bench ab --runs times with this pgseq as both base and candidate (A/A:
every change it sees is noise) and writes, for every metric bench ab
judges, the change each run measured, the noise floor (the largest change
seen, widened by a quarter; at least 1%) and the false alarms: runs whose
test said significant, and runs the whole rule would have flagged with a
floor made from the other runs only.

Writes to --out: calibration.json (give it to bench ab --calibration),
calibration.md, and run-N/ for each A/A run.

  pgseq bench calibrate --runs 10 --quick scenarios/drain.hcl scenarios/explain.hcl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if cfg.instructions && !cmd.Flags().Changed("rounds") {
				cfg.rounds = abCountedRounds
			}
			if runs < 2 {
				return fmt.Errorf("invalid --runs %d: calibration needs at least 2 A/A runs", runs)
			}
			cfg.files = args // no base: this build against itself
			if err := a.prepareAB(&cfg); err != nil {
				return err
			}
			var all [][]gate.Row
			var loads []float64
			var env report.Environment
			for i := range runs {
				run := cfg
				run.outDir = filepath.Join(outDir, fmt.Sprintf("run-%d", i+1))
				fmt.Fprintf(a.stderr, "== A/A run %d of %d\n", i+1, runs)
				rep, err := a.runAB(ctx, run, gate.Options{Counted: cfg.instructions})
				if err != nil {
					return err
				}
				if err := writeABReport(run.outDir, rep); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "   %s\n", rep.Summary())
				all = append(all, rep.Rows)
				if len(rep.Loads) > 0 {
					loads = append(loads, rep.Loads[0])
				}
				env = rep.Environment
			}
			cal := gate.Calibrate(all)
			cal.CreatedAt = time.Now().UTC()
			cal.Command = append([]string{"pgseq"}, a.args...)
			cal.Environment, cal.Quick, cal.Loads = env, cfg.quick, loads
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(outDir, "calibration.json"), cal.WriteJSON); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(outDir, "calibration.md"), cal.WriteMarkdown); err != nil {
				return err
			}
			if err := cal.WriteText(a.stdout); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\nWrote %s (give it to bench ab --calibration) and %s.\n",
				filepath.Join(outDir, "calibration.json"), filepath.Join(outDir, "calibration.md"))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&runs, "runs", 10, "A/A runs")
	f.StringSliceVar(&cfg.names, "scenario", nil, "run only these scenarios (and those they are measured against); repeat or separate with commas")
	f.BoolVar(&cfg.quick, "quick", false, "run every scenario at its quick size")
	f.IntVar(&cfg.rounds, "rounds", abDefaultRounds, "rounds of each A/A run (use bench ab's; default 3 with --instructions)")
	f.StringVar(&outDir, "out", filepath.Join("results", "calibration"), "directory to write the calibration to")
	f.BoolVar(&cfg.instructions, "instructions", false, "calibrate bench ab --instructions: count the instructions PostgreSQL executes (under valgrind's cachegrind)")
	return cmd
}

// prepareAB checks cfg's rounds, scenario files and names, and finds both
// binaries: the base is this one when cfg.base is empty (A/A).
func (a *app) prepareAB(cfg *abConfig) error {
	if cfg.rounds < gate.MinRounds {
		return fmt.Errorf("invalid --rounds %d: the paired test needs at least %d rounds", cfg.rounds, gate.MinRounds)
	}
	if len(cfg.files) == 0 {
		cfg.files = []string{"scenarios"}
	}
	all, diags := scenariofile.Load(cfg.files...)
	if len(diags) > 0 {
		srcs, _ := scenariofile.ReadFiles(cfg.files...)
		if err := spec.WriteDiagnostics(a.stderr, diags, parsedFiles(srcs)); err != nil {
			return fmt.Errorf("printing diagnostics: %w", err)
		}
		if diags.HasErrors() {
			return errReported
		}
	}
	picked, err := pickScenarios(all, cfg.names)
	if err != nil {
		return err
	}
	cfg.picked = picked
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this pgseq's binary: %w", err)
	}
	cfg.candidate = self
	if cfg.base == "" {
		cfg.base = self
		return nil
	}
	base, err := filepath.Abs(cfg.base)
	if err != nil {
		return err
	}
	st, err := os.Stat(base)
	switch {
	case err != nil:
		return fmt.Errorf("--base %s: %w", cfg.base, err)
	case st.IsDir() || st.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("--base %s: not an executable file; build one with go build -o PATH ./cmd/pgseq", cfg.base)
	}
	cfg.base = base
	return nil
}

// runAB runs cfg's rounds, the two builds taking turns, and judges them.
func (a *app) runAB(ctx context.Context, cfg abConfig, opts gate.Options) (*gate.Report, error) {
	start := time.Now()
	baseVersion, err := binaryVersion(ctx, cfg.base)
	if err != nil {
		return nil, fmt.Errorf("the base pgseq %s cannot run: %w", cfg.base, err)
	}
	rep := &gate.Report{
		FormatVersion: gate.ReportFormatVersion, StartedAt: start.UTC(),
		Command: append([]string{"pgseq"}, a.args...), Quick: cfg.quick,
		Base:      gate.Build{Path: cfg.base, Version: baseVersion},
		Candidate: gate.Build{Path: cfg.candidate, Version: version()},
	}
	runOnce := a.benchRunOnce
	var counted *countedRuns
	if cfg.instructions {
		srv, err := servercount.Start(ctx)
		if err != nil {
			return nil, fmt.Errorf("starting the counted server: %w", err)
		}
		defer func() { _ = srv.Stop(context.WithoutCancel(ctx)) }()
		fmt.Fprintln(a.stderr, "counting instructions: the scenarios run on a throw-away PostgreSQL under valgrind's cachegrind")
		cfg.databaseURL = srv.URL()
		counted = &countedRuns{a: a, srv: srv}
		runOnce = counted.run
		rep.Instructions = true
		// A new server's first connections build its caches: a run of the
		// first scenario, not counted, before the rounds; by the base, which
		// shows at once whether it can run counted.
		warm := cfg
		warm.picked = cfg.picked[:1]
		t0 := time.Now()
		if _, err := runOnce(ctx, cfg.base, warm, filepath.Join(cfg.outDir, "rounds", "0-warm-up")); err != nil {
			return nil, fmt.Errorf("warming the counted server up: %w", err)
		}
		fmt.Fprintf(a.stderr, "warm-up             %.1f s\n", time.Since(t0).Seconds())
	}
	// The scenarios whose judged metrics are all deterministic (a plan's
	// counts) run in the first round only; the later rounds run the others.
	every, once := splitOncePerBuild(cfg.picked, cfg.instructions)
	later := cfg
	later.picked, later.names = every, scenarioNames(every)
	nRounds := cfg.rounds
	if len(once) > 0 {
		rep.OncePerBuild = scenarioNames(once)
		fmt.Fprintf(a.stderr, "once per build (round 1 only; their plans' counts are the same every run): %s\n", strings.Join(rep.OncePerBuild, ", "))
		if len(every) == 0 {
			// Later rounds would run nothing.
			nRounds = 1
			fmt.Fprintf(a.stderr, "every scenario picked runs once per build: 1 round instead of %d\n", cfg.rounds)
		}
	}
	var rounds []gate.Round
	var candRuns []*report.SuiteResult
	// profiles are each counted scenario's counts in the rounds (not the
	// warm-up), by side: where the instructions changed.
	profiles := map[gate.Side]map[string][]gate.Profile{gate.Base: {}, gate.Candidate: {}}
	for i := range nRounds {
		run := cfg
		if i > 0 && len(once) > 0 {
			run = later
		}
		rd := gate.Round{First: gate.Order(i)}
		rep.Order = append(rep.Order, rd.First)
		sides := []gate.Side{gate.Base, gate.Candidate}
		if rd.First == gate.Candidate {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			bin := cfg.base
			if side == gate.Candidate {
				bin = cfg.candidate
			}
			dir := filepath.Join(cfg.outDir, "rounds", fmt.Sprintf("%d-%s", i+1, side))
			t0 := time.Now()
			res, err := runOnce(ctx, bin, run, dir)
			if err != nil {
				if side == gate.Base {
					return nil, fmt.Errorf("the base pgseq %s (%s) could not run the scenarios: %w", cfg.base, baseVersion, err)
				}
				return nil, fmt.Errorf("the candidate could not run the scenarios: %w", err)
			}
			fmt.Fprintf(a.stderr, "round %d/%d %-9s %.1f s\n", i+1, nRounds, side, time.Since(t0).Seconds())
			rep.Loads = append(rep.Loads, res.LoadBefore)
			if counted != nil {
				for _, sc := range run.picked {
					c := counted.last[sc.Name]
					profiles[side][sc.Name] = append(profiles[side][sc.Name], gate.Profile{Instructions: c.Instructions, Functions: c.Functions})
				}
			}
			if side == gate.Base {
				rd.Base = res
			} else {
				rd.Candidate = res
				candRuns = append(candRuns, res)
			}
		}
		rounds = append(rounds, rd)
	}
	rows, err := gate.Series(rounds)
	if err != nil {
		return nil, err
	}
	if opts.Alpha == 0 {
		opts.Alpha = gate.DefaultAlpha
	}
	rep.Alpha = opts.Alpha
	rep.Rows = gate.Judge(rows, opts)
	rep.Environment = rounds[0].Candidate.Environment
	if counted != nil {
		for _, sc := range cfg.picked {
			fc, err := gate.WhereChanged(sc.Name, profiles[gate.Base][sc.Name], profiles[gate.Candidate][sc.Name])
			if err != nil {
				return nil, fmt.Errorf("comparing the functions' instructions: %w", err)
			}
			rep.Functions = append(rep.Functions, fc)
		}
	}
	// Thresholds are judged on times: not those of a server under valgrind.
	firstOnly := map[string]bool{}
	for _, sc := range once {
		firstOnly[sc.Name] = true
	}
	if !cfg.instructions {
		merged, err := report.MergeRounds(cfg.picked, candRuns, firstOnly)
		if err != nil {
			return nil, fmt.Errorf("judging the candidate's acceptance thresholds: %w", err)
		}
		rep.Thresholds = merged
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// splitOncePerBuild splits the picked scenarios into those every round
// runs and those the first round alone runs (gate.OncePerBuild: explain
// scenarios, unless counted). A scenario another one every round runs is
// measured against runs every round too (bench run --scenario pulls it in;
// against names one of the same workload, so this is for safety).
func splitOncePerBuild(picked []scenariofile.Scenario, counted bool) (every, once []scenariofile.Scenario) {
	each := map[string]bool{}
	for _, sc := range picked {
		if !gate.OncePerBuild(sc.Workload, counted) {
			each[sc.Name] = true
			if sc.Against != "" {
				each[sc.Against] = true
			}
		}
	}
	for _, sc := range picked {
		if each[sc.Name] {
			every = append(every, sc)
		} else {
			once = append(once, sc)
		}
	}
	return every, once
}

// scenarioNames returns the scenarios' names.
func scenarioNames(scs []scenariofile.Scenario) []string {
	names := make([]string, len(scs))
	for i, sc := range scs {
		names[i] = sc.Name
	}
	return names
}

// benchRunOnce runs one round of cfg's scenarios with the pgseq at bin
// (bench run --rounds 1), on the database this command uses, and reads its
// result. Its output goes to dir/log.txt.
func (a *app) benchRunOnce(ctx context.Context, bin string, cfg abConfig, dir string) (*report.SuiteResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"--schema", a.schema}
	if a.localDir != "" && cfg.databaseURL == "" {
		abs, err := filepath.Abs(a.localDir)
		if err != nil {
			return nil, err
		}
		args = append(args, "--local-dir", abs)
	}
	args = append(args, "bench", "run", "--rounds", "1", "--out", dir)
	if cfg.quick {
		args = append(args, "--quick")
	}
	for _, n := range cfg.names {
		args = append(args, "--scenario", n)
	}
	args = append(args, cfg.files...)
	logPath := filepath.Join(dir, "log.txt")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	c := exec.CommandContext(ctx, bin, args...)
	c.Stdout, c.Stderr = log, log
	// The connection string goes by the environment, never the command
	// line (where ps shows it).
	c.Env = append(os.Environ(), noChartsEnv+"=1")
	if cfg.instructions {
		c.Env = append(c.Env, countedEnv+"=1")
	}
	switch {
	case cfg.databaseURL != "":
		c.Env = append(c.Env, "PGSEQ_DATABASE_URL="+cfg.databaseURL)
	case a.databaseURL != "":
		c.Env = append(c.Env, "PGSEQ_DATABASE_URL="+a.databaseURL)
	}
	err = c.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == exitThreshold:
		// A threshold missed: bench ab judges the rounds itself.
	case err != nil:
		return nil, fmt.Errorf("%w; the last lines of %s:\n%s", err, logPath, tailFile(logPath, 12))
	}
	f, err := os.Open(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, fmt.Errorf("reading its result: %w", err)
	}
	defer f.Close()
	return report.ReadSuiteResult(f)
}

// countedEnv, set to 1, makes bench run send the server nothing but the
// scenarios' work (scenarios.SuiteOptions.Counted): bench ab
// --instructions sets it for its invocations.
const countedEnv = "PGSEQ_BENCH_COUNTED"

// noChartsEnv, set to 1, makes bench run write its result files without
// the charts: bench ab sets it for its invocations, whose run.json is all
// it reads (drawing a round's charts took about 0.5 s of its 20 s on a
// 2-core machine). A base that predates it draws them, as before.
const noChartsEnv = "PGSEQ_BENCH_NO_CHARTS"

// countedRuns runs a round of bench ab --instructions: one bench run per
// scenario, each followed by the count of what the server executed for it.
type countedRuns struct {
	a   *app
	srv *servercount.Server
	// last are the counts of the last run's scenarios, by name.
	last map[string]servercount.Count
}

// run runs each of cfg's scenarios in its own invocation (with those it
// is measured against) and returns their results as one, every scenario
// with its ServerInstructions; their counts, per function too, are in
// c.last. Beside each invocation's results in dir/SCENARIO it writes
// server_instructions.txt and server_functions.tsv
// (servercount.WriteFunctionsTSV).
func (c *countedRuns) run(ctx context.Context, bin string, cfg abConfig, dir string) (*report.SuiteResult, error) {
	c.last = map[string]servercount.Count{}
	// Nothing before this round is counted in it.
	if _, err := c.srv.Collect(ctx); err != nil {
		return nil, err
	}
	var out *report.SuiteResult
	for _, sc := range cfg.picked {
		one := cfg
		one.names = []string{sc.Name}
		res, err := c.a.benchRunOnce(ctx, bin, one, filepath.Join(dir, sc.Name))
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		count, err := c.srv.Collect(ctx)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: counting the server's instructions: %w", sc.Name, err)
		}
		// Beside the invocation's own results, for whoever reads them.
		note := fmt.Sprintf("%d instructions in %d server processes\n", count.Instructions, count.Processes)
		if err := os.WriteFile(filepath.Join(dir, sc.Name, "server_instructions.txt"), []byte(note), 0o644); err != nil {
			return nil, err
		}
		if err := writeFile(filepath.Join(dir, sc.Name, "server_functions.tsv"), func(w io.Writer) error {
			return servercount.WriteFunctionsTSV(w, count)
		}); err != nil {
			return nil, err
		}
		c.last[sc.Name] = count
		if !res.Counted {
			return nil, fmt.Errorf("%s cannot run counted (it predates bench ab --instructions, or it ran without %s=1): its runs would also send the server samples whose count grows with their time; judge it without --instructions", bin, countedEnv)
		}
		got := res.Scenario(sc.Name)
		if got == nil {
			return nil, fmt.Errorf("scenario %s: bench run --scenario %s did not report it", sc.Name, sc.Name)
		}
		v := float64(count.Instructions)
		got.Metrics = append(got.Metrics, report.MetricResult{Name: gate.ServerInstructions,
			Unit: scenariofile.UnitInstructions, Samples: []float64{v}, Value: v, N: 1})
		if out == nil {
			out = res
			out.Scenarios = nil
		}
		out.Scenarios = append(out.Scenarios, *got)
	}
	return out, nil
}

// binaryVersion runs bin version and returns its first line.
func binaryVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s version: %w: %s", bin, err, bytes.TrimSpace(out))
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// tailFile returns the last n lines of a file, indented.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// writeABReport writes ab.json and ab.md to dir.
func writeABReport(dir string, rep *gate.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "ab.json"), rep.WriteJSON); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "ab.md"), rep.WriteMarkdown)
}
