package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/scenarios/stats"
)

func (a *app) benchCommand() *cobra.Command {
	cmd := groupCommand(&cobra.Command{
		Use:   "bench",
		Short: "Run benchmark scenarios against the database",
		Long: `Runs benchmark scenarios in throw-away schemas of the configured database
(the built-in local database by default) and writes their results.`,
	})
	cmd.AddCommand(a.benchRunCommand())
	cmd.AddCommand(a.benchCompareCommand())
	cmd.AddCommand(a.benchABCommand())
	cmd.AddCommand(a.benchCalibrateCommand())
	cmd.AddCommand(a.benchDrainCommand())
	cmd.AddCommand(a.benchCountersCommand())
	return cmd
}

func (a *app) benchDrainCommand() *cobra.Command {
	opts := scenarios.DrainOptions{}
	var (
		variants   string
		driver     string
		outDir     string
		cpuProfile string
	)
	cmd := &cobra.Command{
		Use:   "drain [--driver worker|sql] [--tasks 200000] [--rounds 3] [--variants baseline,enabled,mixed,many]",
		Short: "Drain no-op tasks end to end: no limit against limited task types",
		Long: `Seeds no-op tasks into a fresh schema and drains them with in-process
workers (claim → handler → complete), one configuration per variant, run
interleaved round after round:

  baseline  1 queue, 1 task type, no limit
  enabled   100 task types, each limited to 10 (a limit that does not bind)
  mixed     100 task types, 1 of them limited to 10
  many      1,000 task types, each limited to 1,000
  high      1 task type limited to 500 (source 002's concurrency-high: run it
            beside the baseline with many workers and large batches)
  binding   1 task type limited to 10, handlers sleep 20 ms: reported as the
            share of the ideal 500 tasks/s and the running count sampled
            through the run

The default runs baseline, enabled, mixed and many. For example:

  pgseq bench drain --tasks 200000 --rounds 5
  pgseq bench drain --variants baseline,high --workers 8 --tasks 100000 --batch-size 500
  pgseq bench drain --variants binding --workers 4 --tasks 5000 --rounds 3
  pgseq bench drain --driver sql --tasks 100000 --variants baseline,enabled,mixed

--driver sql drains through the SQL API from outside instead, as a worker
in another language would: --workers claimers (default 8), each on its own
connection and registered with register_worker, loop claim(queue, worker,
--batch-size) (default 100) → run → complete_and_take(ids, worker,
--batch-size), whose tasks are the next batch (claim again when it hands
none), each call in its own transaction; for binding (slow handlers) the
claimers start reserved successors when a batch has run and complete it
with complete_and_reserve, which passes its units to them. --pool-size and
the flush flags do not apply.

Reports tasks/s and each variant's median ratio to the baseline of the same
round with a confidence interval, the claim and complete round trips'
latencies (p50/p99), the server time of the runtime functions (with a
superuser), and the targets met and missed. Writes drain.json and drain.md
to --out.

Commits are durable: the benchmark does not change fsync or
synchronous_commit. It creates and drops schemas named <schema>_bench_*.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := scenarios.ParseDriver(driver)
			if err != nil {
				return err
			}
			opts.Driver = d
			if d == scenarios.DriverSQL {
				if !cmd.Flags().Changed("workers") {
					opts.Workers = scenarios.SQLDriverWorkers
				}
				if !cmd.Flags().Changed("batch-size") {
					opts.BatchSize = scenarios.SQLDriverBatchSize
				}
			}
			if variants != "" {
				opts.Variants = nil
				for _, name := range strings.Split(variants, ",") {
					v, err := scenarios.ParseVariant(strings.TrimSpace(name))
					if err != nil {
						return err
					}
					opts.Variants = append(opts.Variants, v)
				}
			}
			if opts.Tasks < 1 || opts.Rounds < 1 || opts.Workers < 1 || opts.PoolSize < 1 {
				return fmt.Errorf("--tasks, --rounds, --workers and --pool-size must be at least 1")
			}
			if opts.BatchSize < 1 || opts.BatchSize > 10000 {
				return fmt.Errorf("--batch-size must be from 1 to 10000, got %d", opts.BatchSize)
			}
			pool, err := a.connectAsWorkers(ctx, "pgseq bench")
			if err != nil {
				return err
			}
			defer pool.Close()
			opts.Pool = pool
			opts.SchemaPrefix = a.schema + "_bench"

			var progress interface {
				scenarios.Progress
				wait()
			}
			if isTerminal(a.stderr) {
				progress = newBarProgress(a.stderr, opts.Rounds)
			} else {
				progress = &lineProgress{w: a.stderr, rounds: opts.Rounds}
			}
			opts.Progress = progress
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return fmt.Errorf("starting the CPU profile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			rep, err := scenarios.RunDrain(ctx, opts)
			progress.wait()
			if err != nil {
				return fmt.Errorf("drain benchmark: %w", err)
			}
			printDrainSummary(a.stdout, rep)
			return a.writeReport(outDir, "drain", rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&driver, "driver", string(scenarios.DriverWorker), "what drains: worker (in-process Go workers) or sql (claimers calling claim and complete_and_take)")
	f.IntVar(&opts.Tasks, "tasks", 200_000, "no-op tasks per run")
	f.IntVar(&opts.Rounds, "rounds", 3, "rounds of every variant, interleaved")
	f.StringVar(&variants, "variants", "baseline,enabled,mixed,many", "variants to run each round, in order: baseline, enabled, mixed, many, high, binding")
	f.IntVar(&opts.Workers, "workers", 1, "workers draining at once (in this process); with --driver sql, claimers (default 8)")
	f.IntVar(&opts.PoolSize, "pool-size", 4, "handlers per worker")
	f.IntVar(&opts.BatchSize, "batch-size", 200, "the queue's batch_size: tasks per claim (--driver sql: default 100)")
	f.IntVar(&opts.FlushSize, "flush-size", 0, "complete as soon as this many tasks finished (default: the batch size)")
	f.DurationVar(&opts.FlushInterval, "flush-interval", 2*time.Millisecond, "complete finished tasks at least this often")
	f.IntVar(&opts.Warmup, "warmup", 0, "tasks of an unreported baseline warm-up run (default min(tasks, 20000); -1: none)")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write this process's CPU profile (workers, seeding) to FILE, for go tool pprof")
	f.StringVar(&outDir, "out", "results", `directory to write drain.json and drain.md to ("" writes nothing)`)
	return cmd
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func runLabel(ev scenarios.Event, rounds int) string {
	if ev.Round == 0 {
		return fmt.Sprintf("warm-up   %-8s", ev.Variant)
	}
	if rounds == 0 {
		return fmt.Sprintf("round %d %-8s", ev.Round, ev.Variant)
	}
	return fmt.Sprintf("round %d/%d %-8s", ev.Round, rounds, ev.Variant)
}

func runResult(r *scenarios.Run) string {
	return fmt.Sprintf("%s tasks/s (%.2f s), claim p50/p99 %s/%s, complete p50/p99 %s/%s",
		textfmt.Thousands(int64(r.TasksPerSec+0.5)), r.Seconds, us(r.Claim.P50), us(r.Claim.P99), us(r.Complete.P50), us(r.Complete.P99))
}

// lineProgress prints a line when a run starts draining and when it ends:
// for logs and CI.
type lineProgress struct {
	w      io.Writer
	rounds int
	// draining is the run whose draining line was printed.
	draining string
}

func (p *lineProgress) Update(ev scenarios.Event) {
	run := fmt.Sprintf("%d/%s", ev.Round, ev.Variant)
	switch {
	case ev.Phase == scenarios.PhaseDrain && ev.Done == 0 && p.draining != run:
		p.draining = run
		fmt.Fprintf(p.w, "%s  seeded %s; draining\n", runLabel(ev, p.rounds), textfmt.Plural(ev.Total, "task"))
	case ev.Phase == scenarios.PhaseDone:
		fmt.Fprintf(p.w, "%s  %s\n", runLabel(ev, p.rounds), runResult(ev.Run))
	}
}

func (p *lineProgress) wait() {}

// barProgress shows a progress bar per run on a terminal.
type barProgress struct {
	p      *mpb.Progress
	rounds int

	bar        *mpb.Bar
	status     *barStatus // the current run's, shown beside its bar
	drainStart time.Time
}

// barStatus is the text beside one bar: set by the benchmark, read by the
// render goroutine. Each bar has its own, so a finished run keeps showing
// its result.
type barStatus struct {
	mu sync.Mutex
	s  string
}

func (st *barStatus) set(s string) {
	st.mu.Lock()
	st.s = s
	st.mu.Unlock()
}

func (st *barStatus) get() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s
}

// decorator shows the status beside a bar.
func (st *barStatus) decorator() decor.Decorator {
	return decor.Any(func(decor.Statistics) string { return st.get() })
}

// newBars returns a container for the benchmarks' progress bars, drawn on w.
func newBars(w io.Writer) *mpb.Progress {
	return mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond))
}

func newBarProgress(w io.Writer, rounds int) *barProgress {
	return &barProgress{p: newBars(w), rounds: rounds}
}

func (b *barProgress) Update(ev scenarios.Event) {
	switch ev.Phase {
	case scenarios.PhaseSetup:
		st := &barStatus{s: "setting up"}
		b.status = st
		b.bar = b.p.AddBar(int64(ev.Total),
			mpb.PrependDecorators(decor.Name(runLabel(ev, b.rounds), decor.WCSyncSpaceR)),
			mpb.AppendDecorators(st.decorator()))
	case scenarios.PhaseSeed:
		b.status.set(fmt.Sprintf("seeding %s/%s", textfmt.Thousands(ev.Done), textfmt.Thousands(ev.Total)))
		b.bar.SetCurrent(int64(ev.Done))
	case scenarios.PhaseDrain:
		if ev.Done == 0 {
			b.drainStart = time.Now()
			b.bar.SetCurrent(0)
		}
		rate := ""
		if d := time.Since(b.drainStart).Seconds(); d > 0 && ev.Done > 0 {
			rate = fmt.Sprintf(", %s tasks/s", textfmt.Thousands(int64(float64(ev.Done)/d)))
		}
		b.status.set(fmt.Sprintf("draining %s/%s%s", textfmt.Thousands(ev.Done), textfmt.Thousands(ev.Total), rate))
		b.bar.SetCurrent(int64(ev.Done))
	case scenarios.PhaseDone:
		b.status.set(runResult(ev.Run))
		b.bar.SetCurrent(int64(ev.Total))
		b.bar.Wait()
	}
}

func (b *barProgress) wait() {
	if b.bar != nil && !b.bar.Completed() {
		b.bar.Abort(false)
	}
	b.p.Wait()
}

func printDrainSummary(w io.Writer, rep *scenarios.DrainReport) {
	s := rep.Settings
	drainers := fmt.Sprintf("%s × pool %d", textfmt.Plural(s.Workers, "worker"), s.PoolSize)
	if s.Driver == scenarios.DriverSQL {
		drainers = textfmt.Plural(s.Workers, "SQL claimer")
	}
	fmt.Fprintf(w, "\nDrain: %s per run, %s, %s, batch %d\n\n",
		textfmt.Plural(s.Tasks, "task"), textfmt.Plural(s.Rounds, "round"), drainers, s.BatchSize)
	fmt.Fprintf(w, "%-9s %12s %8s %-26s %21s %21s\n", "variant", "tasks/s", "ratio", "CI of the median", "claim p50/p99", "complete p50/p99")
	for _, v := range rep.Variants {
		ratio, ci := "1", ""
		if v.VsBaseline != nil {
			ratio = fmt.Sprintf("%.3f", v.VsBaseline.Median)
			if v.VsBaseline.N >= 2 {
				ci = fmt.Sprintf("%.3f–%.3f (%s)", v.VsBaseline.Low, v.VsBaseline.High, stats.FormatLevel(v.VsBaseline.Level))
			}
		}
		fmt.Fprintf(w, "%-9s %12s %8s %-26s %21s %21s\n", v.Variant, textfmt.Thousands(int64(v.MedianTasksPerSec+0.5)), ratio, ci,
			us(v.Claim.P50)+" / "+us(v.Claim.P99), us(v.Complete.P50)+" / "+us(v.Complete.P99))
	}
	fmt.Fprintln(w)
	printChecks(w, rep.Checks)
}

// printChecks prints one line per check: its status, what it measured and
// its target.
func printChecks(w io.Writer, checks []scenarios.Check) {
	for _, c := range checks {
		fmt.Fprintf(w, "%-12s %s: %s (target %s)\n", c.Status, c.Name, c.Measured, c.Target)
	}
}

// us formats microseconds.
func us(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%.2fms", x/1000)
	}
	return fmt.Sprintf("%.0fµs", x)
}

// benchReport is a benchmark result that writes itself as JSON and
// Markdown.
type benchReport interface {
	WriteJSON(w io.Writer) error
	WriteMarkdown(w io.Writer) error
}

// writeReport writes rep to DIR/NAME.json and DIR/NAME.md; an empty dir
// writes nothing.
func (a *app) writeReport(dir, name string, rep benchReport) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	jsonPath, mdPath := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".md")
	if err := writeFile(jsonPath, rep.WriteJSON); err != nil {
		return err
	}
	if err := writeFile(mdPath, rep.WriteMarkdown); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nWrote %s and %s.\n", jsonPath, mdPath)
	return nil
}
