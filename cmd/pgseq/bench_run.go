package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/scenarios/charts"
	"github.com/pgseq/pgseq/scenarios/compare"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/spec"
)

// exitThreshold is bench run's and bench compare's code when a threshold
// was missed (or could not be decided), or a metric regressed.
const exitThreshold = 4

func (a *app) benchRunCommand() *cobra.Command {
	var (
		names  []string
		quick  bool
		rounds int
		outDir string
	)
	cmd := &cobra.Command{
		Use:   "run [--scenario NAME]... [--quick] [--rounds N] [--out DIR] [PATH...]",
		Short: "Run the scenarios declared in files and judge their thresholds",
		Long: `Runs the benchmark scenarios declared in scenario files (PATH: files, or
directories whose *.hcl files are read; default: scenarios/) against the
database, in throw-away schemas, and judges every threshold.

Drain scenarios run in groups: a scenario and those declared "against" it
run interleaved, round after round, so their ratios compare runs made one
after the other on the same machine. Explain scenarios record the plans of
every statement of claim and complete; counters scenarios run interleaved;
soak scenarios run one by one for their duration, sampled over time; scale
scenarios apply a generated configuration of many task types, then time
no-op plans of it and a change to 1% of its types.

Writes to --out: run.json (the versioned result, every round's samples),
run.md (a report for a pull request), run.bench.txt (Go benchmark format,
for benchstat), charts/ (PNG and SVG) and plans/ (EXPLAIN JSON).

Exit codes: 0 every threshold met; 4 a threshold missed or inconclusive
(a run too noisy to decide); 1 an error (bad scenario files: file:line:col).

  pgseq bench run scenarios/
  pgseq bench run --quick scenarios/
  pgseq bench run --scenario enabled --quick scenarios/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if len(args) == 0 {
				args = []string{"scenarios"}
			}
			all, diags := scenariofile.Load(args...)
			if len(diags) > 0 {
				srcs, _ := scenariofile.ReadFiles(args...)
				if err := spec.WriteDiagnostics(a.stderr, diags, parsedFiles(srcs)); err != nil {
					return fmt.Errorf("printing diagnostics: %w", err)
				}
				if diags.HasErrors() {
					return errReported
				}
			}
			picked, err := pickScenarios(all, names)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("rounds") {
				if rounds < 1 {
					return fmt.Errorf("invalid --rounds %d: a scenario runs at least 1 round", rounds)
				}
				picked = withRounds(picked, rounds)
			}
			pool, err := a.connectAsWorkers(ctx, "pgseq bench")
			if err != nil {
				return err
			}
			defer pool.Close()
			if outDir != "" {
				if err := os.MkdirAll(outDir, 0o755); err != nil {
					return err
				}
			}
			var progress interface {
				scenarios.Progress
				wait()
			}
			if isTerminal(a.stderr) {
				progress = newBarProgress(a.stderr, 0)
			} else {
				progress = &lineProgress{w: a.stderr}
			}
			// The counters scenarios run interleaved, round after round:
			// one bar counts all their runs.
			counterRuns := 0
			for _, sc := range picked {
				if sc.Workload == scenariofile.WorkloadCounters {
					counterRuns += scenariofile.EffectiveSize(sc, quick).Rounds
				}
			}
			counters := newCounterProgress(a.stderr, isTerminal(a.stderr), counterRuns)
			soak := &soakProgress{w: a.stderr, terminal: isTerminal(a.stderr)}
			if bars, ok := progress.(*barProgress); ok {
				counters.p = bars.p // one container draws every bar
				soak.p = bars.p
			}
			res, err := scenarios.RunSuite(ctx, scenarios.SuiteOptions{
				Pool: pool, Scenarios: picked, Quick: quick, SchemaPrefix: a.schema + "_bench",
				OutDir:   plansDir(outDir),
				Command:  append([]string{"pgseq"}, a.args...),
				Step:     func(s string) { fmt.Fprintf(a.stderr, "== %s\n", s) },
				Drain:    progress,
				Counters: counters.update,
				Soak:     soak.update,
				// Set by bench ab --instructions for its invocations.
				Counted: os.Getenv(countedEnv) == "1",
			})
			soak.wait()
			counters.wait()
			progress.wait()
			if err != nil {
				return fmt.Errorf("benchmark: %w", err)
			}
			if outDir != "" {
				if err := writeSuite(outDir, res); err != nil {
					return err
				}
			}
			printVerdict(a.stdout, res)
			if outDir != "" {
				fmt.Fprintf(a.stdout, "\nWrote %s.\n", writtenList(outDir, res))
			}
			if res.Verdict != report.VerdictMet {
				return &exitCode{code: exitThreshold}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&names, "scenario", nil, "run only these scenarios (and those they are measured against); repeat or separate with commas")
	f.BoolVar(&quick, "quick", false, "run every scenario at its quick size: a smoke run")
	f.IntVar(&rounds, "rounds", 0, "run every scenario this many rounds instead of its own (bench ab runs one per invocation)")
	f.StringVar(&outDir, "out", filepath.Join("results", "run"), `directory to write the results to ("" writes nothing)`)
	return cmd
}

// writtenList names what writeSuite wrote to dir for res: charts/ and
// plans/ only when there are any.
func writtenList(dir string, res *report.SuiteResult) string {
	parts := []string{
		filepath.Join(dir, "run.json") + " (JSON)",
		filepath.Join(dir, "run.md") + " (Markdown)",
		filepath.Join(dir, "run.bench.txt"),
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "charts")); err == nil && len(entries) > 0 {
		parts = append(parts, filepath.Join(dir, "charts")+"/")
	}
	for _, s := range res.Scenarios {
		if len(s.Plans) > 0 {
			parts = append(parts, filepath.Join(dir, "plans")+"/")
			break
		}
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// withRounds returns the scenarios set to run n rounds at either size.
func withRounds(scs []scenariofile.Scenario, n int) []scenariofile.Scenario {
	out := make([]scenariofile.Scenario, len(scs))
	for i, sc := range scs {
		sc.Size.Rounds, sc.Quick.Rounds = n, n
		out[i] = sc
	}
	return out
}

// soakProgress shows the soak runs' progress: on a terminal a bar per run
// counting its measured seconds, with the latest sample beside it; a line
// per sample otherwise.
type soakProgress struct {
	w        io.Writer
	terminal bool
	// p draws the bars: bench run's drain bars' container.
	p *mpb.Progress

	bar   *mpb.Bar
	state barStatus // beside every bar: the latest sample
}

func (sp *soakProgress) update(ev scenarios.SoakProgress) {
	line := "warming up"
	if ev.Sample != nil {
		line = ev.Sample.Summary()
	}
	if !sp.terminal || sp.p == nil {
		fmt.Fprintf(sp.w, "soak %s %s/%s  %s\n", ev.Scenario, ev.Elapsed.Round(time.Second), ev.Duration, line)
		return
	}
	if ev.Warmup {
		if sp.bar != nil && !sp.bar.Completed() {
			sp.bar.Abort(false)
		}
		sp.bar = sp.p.AddBar(int64(ev.Duration/time.Second),
			mpb.PrependDecorators(decor.Name("soak "+ev.Scenario, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(sp.state.decorator()))
	}
	sp.state.set(line)
	if sp.bar != nil {
		sp.bar.SetCurrent(int64(ev.Elapsed / time.Second))
	}
}

// wait ends the last bar if the run stopped before it was full.
func (sp *soakProgress) wait() {
	if sp.bar != nil && !sp.bar.Completed() {
		sp.bar.Abort(false)
	}
}

// pickScenarios returns the scenarios named (all when none), with the
// scenarios they are measured against, in file order.
func pickScenarios(all []scenariofile.Scenario, names []string) ([]scenariofile.Scenario, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]scenariofile.Scenario{}
	var known []string
	for _, sc := range all {
		byName[sc.Name] = sc
		known = append(known, sc.Name)
	}
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		sc, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("no scenario named %q (known: %s)", n, strings.Join(known, ", "))
		}
		want[n] = true
		if sc.Against != "" {
			want[sc.Against] = true
		}
	}
	var out []scenariofile.Scenario
	for _, sc := range all {
		if want[sc.Name] {
			out = append(out, sc)
		}
	}
	return out, nil
}

// writeSuite writes the result's files to dir, and its charts unless
// bench ab, which reads only run.json, asked for none (noChartsEnv).
func writeSuite(dir string, res *report.SuiteResult) error {
	var drawn []string
	if os.Getenv(noChartsEnv) != "1" {
		var err error
		if drawn, err = charts.Write(filepath.Join(dir, "charts"), res); err != nil {
			return fmt.Errorf("drawing the charts: %w", err)
		}
	}
	for i, c := range drawn {
		drawn[i] = filepath.ToSlash(filepath.Join("charts", c))
	}
	if err := writeFile(filepath.Join(dir, "run.json"), res.WriteJSON); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "run.md"), func(w io.Writer) error { return res.WriteMarkdown(w, drawn) }); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "run.bench.txt"), func(w io.Writer) error { return compare.WriteGoBench(w, res) })
}

// printVerdict prints every threshold's outcome and the verdict.
func printVerdict(w io.Writer, res *report.SuiteResult) {
	rows := [][]string{{"STATUS", "SCENARIO", "METRIC", "THRESHOLD", "MEASURED", "WHY"}}
	for _, s := range res.Scenarios {
		for _, t := range s.Thresholds {
			rows = append(rows, []string{string(t.Status), s.Name, t.Metric, report.FormatBound(s, t), report.FormatMeasured(s, t), t.Reason})
		}
	}
	var b strings.Builder
	report.WriteAligned(&b, rows, make([]bool, len(rows[0])))
	fmt.Fprint(w, b.String())
	met, missed, inconclusive := res.Counts()
	fmt.Fprintf(w, "\nVerdict: %s (%d met, %d missed, %d inconclusive)\n", res.Verdict, met, missed, inconclusive)
	if res.Verdict == report.VerdictInconclusive {
		fmt.Fprintln(w, "Some thresholds could not be decided: run more rounds, or on a quieter machine.")
	}
}

func (a *app) benchCompareCommand() *cobra.Command {
	var (
		tolerance string
		markdown  bool
	)
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "Compare two benchmark runs and flag significant regressions",
		Long: `Compares two results of pgseq bench run, scenario by scenario and metric by
metric: the change of the median and a Mann-Whitney U test over the rounds
(benchstat's test). A change that is not significant shows as "~".

Exit codes: 0 no metric regressed significantly beyond --tolerance; 4 one
did (named in the output); 1 an error — including runs of different
scenarios or sizes, which cannot be compared.

Runs from different machines (CPU, PostgreSQL, its settings, Go) or made
under different loads are not judged: the same code reads 20–40% apart
there, so compare shows the changes, says why it cannot judge them, and
exits 0. Even two runs on one machine at different times differ by ±15%:
to judge a build against another, use pgseq bench ab, which runs both in
turns in one run.

  pgseq bench compare results/baseline.json results/run/run.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			tol, err := parseTolerance(tolerance)
			if err != nil {
				return err
			}
			var runs [2]*report.SuiteResult
			for i, path := range args {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				runs[i], err = report.ReadSuiteResult(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("reading %s: %w", path, err)
				}
			}
			cmp, err := compare.Compare(runs[0], runs[1], compare.Options{Tolerance: tol})
			if err != nil {
				return err
			}
			if markdown {
				err = cmp.WriteMarkdown(a.stdout)
			} else {
				err = cmp.WriteText(a.stdout)
			}
			if err != nil {
				return err
			}
			if cmp.Regressions > 0 {
				fmt.Fprintf(a.stdout, "\n%s regressed beyond %s.\n", textfmt.Plural(cmp.Regressions, "metric"), tolerance)
				return &exitCode{code: exitThreshold}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tolerance, "tolerance", "5%", "a significant change worse than this is a regression")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown table (for a pull-request comment)")
	return cmd
}

// parseTolerance reads "5%" or "0.05".
func parseTolerance(s string) (float64, error) {
	var v float64
	var err error
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		_, err = fmt.Sscanf(p, "%g", &v)
		v /= 100
	} else {
		_, err = fmt.Sscanf(s, "%g", &v)
	}
	if err != nil || v < 0 || v >= 1 {
		return 0, fmt.Errorf("--tolerance must be a percentage from 0%% to 99%% (like 5%%), got %q", s)
	}
	return v, nil
}

// plansDir is where bench run stores the explain workload's plans.
func plansDir(outDir string) string {
	if outDir == "" {
		return ""
	}
	return filepath.Join(outDir, "plans")
}

// parsedFiles parses the scenario files' sources again, only so that
// diagnostics can quote their lines.
func parsedFiles(srcs map[string][]byte) map[string]*hcl.File {
	files := make(map[string]*hcl.File, len(srcs))
	for name, src := range srcs {
		f, _ := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if f != nil {
			files[name] = f
		}
	}
	return files
}
