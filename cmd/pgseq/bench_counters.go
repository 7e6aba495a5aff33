package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios"
)

func (a *app) benchCountersCommand() *cobra.Command {
	opts := scenarios.CountersOptions{}
	var outDir string
	cmd := &cobra.Command{
		Use:   "counters [--rounds 6] [--duration 1s]",
		Short: "Insert throughput with attached counters: vs bigserial, one hot scope, advisory_lock by rows per scope",
		Long: `Measures inserts into tables numbered by attached counters, each insert its
own durable transaction, for these cases run interleaved round after round:

  plain / attached         bigserial vs counter_table, 8 clients, 1,000 scopes
  hot-1 / hot-8 / hot-64   one hot scope (counter_table), 1, 8 and 64 clients
  hot-64-pool-8            64 clients sharing 8 connections
  hot-advisory_lock-*      the same hot scope numbered by advisory_lock, 8 and 64 clients
  *-1k / *-100k            counter_table and advisory_lock at 1,000 and
                           100,000 rows per scope (8 clients, a scope each)

Reports each case's inserts/s and latency, and per-round ratios (attached vs
plain: target 0.70; hot scope 64 vs 8 clients: target 0.80) with confidence
intervals. Writes counters.json and counters.md to --out.

Commits are durable: the benchmark does not change fsync or
synchronous_commit. It creates and drops schemas named <schema>_bench_*.
The same scenario runs as go test -run '^$' -bench Counters ./counter.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if opts.Rounds < 1 || opts.Duration <= 0 {
				return fmt.Errorf("--rounds must be at least 1 and --duration positive")
			}
			cases, err := scenarios.CounterCases()
			if err != nil {
				return fmt.Errorf("counters benchmark: %w", err)
			}
			pool, err := a.connectAsWorkers(ctx, "pgseq bench")
			if err != nil {
				return err
			}
			defer pool.Close()
			opts.Pool = pool
			opts.SchemaPrefix = a.schema + "_bench_counters"
			progress := newCounterProgress(a.stderr, isTerminal(a.stderr), opts.Rounds*len(cases))
			opts.Progress = progress.update
			rep, err := scenarios.RunCounters(ctx, opts)
			progress.wait()
			if err != nil {
				return fmt.Errorf("counters benchmark: %w", err)
			}
			printCountersSummary(a.stdout, rep)
			return a.writeReport(outDir, "counters", rep)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Rounds, "rounds", 6, "rounds of every case, interleaved")
	f.DurationVar(&opts.Duration, "duration", time.Second, "how long each run inserts")
	f.StringVar(&outDir, "out", "results", `directory to write counters.json and counters.md to ("" writes nothing)`)
	return cmd
}

// counterProgress shows the scenario's progress: a bar on a terminal, a
// line per run otherwise. The bar appears at the first event, below any
// bars drawn before it.
type counterProgress struct {
	w        io.Writer
	terminal bool
	runs     int
	bar      *mpb.Bar
	p        *mpb.Progress
	// owned says p is the bar's own container, to wait for; false when it
	// shares another's (bench run's drain bars).
	owned bool
	state barStatus
}

// runs is the number of measured runs the bar counts to.
func newCounterProgress(w io.Writer, terminal bool, runs int) *counterProgress {
	return &counterProgress{w: w, terminal: terminal, runs: runs}
}

func (cp *counterProgress) update(ev scenarios.CounterProgress) {
	line := ev.Step
	if ev.Run != nil {
		line = fmt.Sprintf("%s %-20s %s inserts/s, p50 %s, p99 %s", ev.Step, ev.Run.Case,
			textfmt.Thousands(int64(ev.Run.InsertsPerSec+0.5)), us(ev.Run.Latency.P50), us(ev.Run.Latency.P99))
	}
	if !cp.terminal {
		fmt.Fprintln(cp.w, line)
		return
	}
	if cp.bar == nil {
		if cp.p == nil {
			cp.p, cp.owned = newBars(cp.w), true
		}
		cp.bar = cp.p.AddBar(int64(cp.runs),
			mpb.PrependDecorators(decor.Name("counters", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d runs", decor.WCSyncSpaceR)),
			mpb.AppendDecorators(cp.state.decorator()))
	}
	cp.state.set(line)
	if ev.Run != nil {
		cp.bar.Increment()
	}
}

func (cp *counterProgress) wait() {
	if cp.bar != nil && !cp.bar.Completed() {
		cp.bar.Abort(false)
	}
	if cp.owned {
		cp.p.Wait()
	}
}

func printCountersSummary(w io.Writer, rep *scenarios.CountersReport) {
	s := rep.Settings
	fmt.Fprintf(w, "\nCounters: %s of %.1f s per case, host load %.2f before, %.2f after\n\n", textfmt.Plural(s.Rounds, "round"), s.RunSeconds, rep.LoadBefore, rep.LoadAfter)
	fmt.Fprintf(w, "%-22s %12s %12s %12s\n", "case", "inserts/s", "p50", "p99")
	for _, c := range rep.Cases {
		fmt.Fprintf(w, "%-22s %12s %12s %12s\n", c.Case, textfmt.Thousands(int64(c.Median+0.5)), us(c.Latency.P50), us(c.Latency.P99))
	}
	fmt.Fprintf(w, "\n%-72s %8s  %s\n", "comparison", "ratio", "geometric mean [95% CI]")
	for _, c := range rep.Comparisons {
		geo := ""
		if c.Ratio.N >= 2 {
			geo = fmt.Sprintf("%.3f [%.3f–%.3f]", c.Ratio.GeoMean, c.Ratio.GeoLow, c.Ratio.GeoHigh)
		}
		fmt.Fprintf(w, "%-72s %8.3f  %s\n", c.Name, c.Ratio.Median, geo)
	}
	fmt.Fprintln(w)
	printChecks(w, rep.Checks)
}
