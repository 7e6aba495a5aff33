package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// SuiteOptions configure RunSuite. Pool and Scenarios are required.
type SuiteOptions struct {
	Pool *pgxpool.Pool
	// Scenarios to run, in file order. A scenario's Against must be among
	// them (the CLI adds it when --scenario picks one).
	Scenarios []scenariofile.Scenario
	// Quick runs every scenario at its quick size.
	Quick bool
	// OutDir is where the explain workload stores its plans ("" keeps
	// none).
	OutDir string
	// SchemaPrefix names the throw-away schemas (default "pgseq_bench").
	SchemaPrefix string
	// Command is the command line, recorded in the result with its
	// passwords masked (report.RedactCommand).
	Command []string
	// Step is told what the suite starts next (a line for a log); Drain
	// receives the drain runs' progress. Both may be nil.
	Step  func(string)
	Drain Progress
	// Counters receives the counters runs' progress; may be nil.
	Counters func(CounterProgress)
	// Soak receives the soak runs' progress; may be nil.
	Soak func(SoakProgress)
	// Counted says the server counts the instructions it executes (bench
	// ab --instructions): the drains send it nothing but their work
	// (DrainOptions.Counted).
	Counted bool
}

// RunSuite runs the scenarios — drain scenarios in groups (a reference and
// the scenarios measured against it, interleaved round after round), then
// the explain scenarios, then the counters scenarios interleaved, then the
// soak scenarios one by one, then the scale scenarios one by one — and
// judges every threshold.
func RunSuite(ctx context.Context, opts SuiteOptions) (*report.SuiteResult, error) {
	if opts.Pool == nil || len(opts.Scenarios) == 0 {
		return nil, errors.New("scenarios: SuiteOptions needs a Pool and Scenarios")
	}
	if opts.SchemaPrefix == "" {
		opts.SchemaPrefix = "pgseq_bench"
	}
	step := opts.Step
	if step == nil {
		step = func(string) {}
	}
	started := time.Now()
	res := &report.SuiteResult{
		FormatVersion: report.ResultFormatVersion, StartedAt: started.UTC(), Command: report.RedactCommand(opts.Command),
		Quick: opts.Quick, LoadBefore: loadAverage(), Counted: opts.Counted,
	}
	env, err := environment(ctx, opts.Pool)
	if err != nil {
		return nil, err
	}
	res.Environment = env

	byName := map[string]scenariofile.Scenario{}
	for _, sc := range opts.Scenarios {
		byName[sc.Name] = sc
	}
	for _, sc := range opts.Scenarios {
		if sc.Against != "" {
			if _, ok := byName[sc.Against]; !ok {
				return nil, fmt.Errorf("scenario %q is measured against %q, which is not in this run", sc.Name, sc.Against)
			}
		}
	}
	results := map[string]report.ScenarioResult{}

	// Drain groups, in the order their references appear.
	for _, ref := range opts.Scenarios {
		if ref.Workload != scenariofile.WorkloadDrain || ref.Against != "" {
			continue
		}
		group := []scenariofile.Scenario{ref}
		for _, sc := range opts.Scenarios {
			if sc.Workload == scenariofile.WorkloadDrain && sc.Against == ref.Name {
				group = append(group, sc)
			}
		}
		step(fmt.Sprintf("drain: %s", groupLabel(group)))
		out, err := runDrainGroup(ctx, opts, group)
		if err != nil {
			return nil, err
		}
		for _, r := range out {
			results[r.Name] = r
		}
	}

	// Explain scenarios, one by one.
	for _, sc := range opts.Scenarios {
		if sc.Workload != scenariofile.WorkloadExplain {
			continue
		}
		step(fmt.Sprintf("explain: %s", sc.Name))
		r, err := RunExplain(ctx, ExplainOptions{
			Pool: opts.Pool, Scenario: sc, Size: scenariofile.EffectiveSize(sc, opts.Quick),
			SchemaPrefix: opts.SchemaPrefix, OutDir: opts.OutDir,
		})
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		results[sc.Name] = *r
	}

	// Counters scenarios, all interleaved.
	var counters []scenariofile.Scenario
	sizes := map[string]scenariofile.Size{}
	for _, sc := range opts.Scenarios {
		if sc.Workload == scenariofile.WorkloadCounters {
			counters = append(counters, sc)
			sizes[sc.Name] = scenariofile.EffectiveSize(sc, opts.Quick)
		}
	}
	if len(counters) > 0 {
		step(fmt.Sprintf("counters: %s", groupLabel(counters)))
		out, err := RunCounterScenarios(ctx, opts.Pool, counters, sizes, opts.SchemaPrefix, opts.Counters)
		if err != nil {
			return nil, err
		}
		for _, r := range out {
			results[r.Name] = r
		}
	}

	// Soak scenarios, one by one: each runs for its duration.
	for _, sc := range opts.Scenarios {
		if sc.Workload != scenariofile.WorkloadSoak {
			continue
		}
		size := scenariofile.EffectiveSize(sc, opts.Quick)
		step(fmt.Sprintf("soak: %s (%s at %s tasks/s)", sc.Name, size.Duration, textfmt.Thousands(size.Rate)))
		r, err := RunSoak(ctx, SoakOptions{
			Pool: opts.Pool, Scenario: sc, Size: size, SchemaPrefix: opts.SchemaPrefix, Progress: opts.Soak,
		})
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		results[sc.Name] = *r
	}

	// Scale scenarios, one by one: each applies its generated
	// configuration to a schema of its own.
	for _, sc := range opts.Scenarios {
		if sc.Workload != scenariofile.WorkloadScale {
			continue
		}
		size := scenariofile.EffectiveSize(sc, opts.Quick)
		step(fmt.Sprintf("scale: %s (%s)", sc.Name, report.SizeLine(scenariofile.WorkloadScale, size)))
		r, err := RunScale(ctx, ScaleOptions{
			Pool: opts.Pool, Scenario: sc, Size: size, SchemaPrefix: opts.SchemaPrefix,
			Step: func(s string) { step(fmt.Sprintf("scale: %s: %s", sc.Name, s)) },
		})
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		results[sc.Name] = *r
	}

	for _, sc := range opts.Scenarios {
		r, ok := results[sc.Name]
		if !ok {
			return nil, fmt.Errorf("scenario %q produced no result", sc.Name)
		}
		r.Thresholds = report.JudgeAll(sc, &r)
		res.Scenarios = append(res.Scenarios, r)
	}
	res.Verdict = report.Verdict(res.Scenarios)
	res.LoadAfter = loadAverage()
	res.Seconds = time.Since(started).Seconds()
	return res, nil
}

func groupLabel(group []scenariofile.Scenario) string {
	s := group[0].Name
	for _, sc := range group[1:] {
		s += ", " + sc.Name
	}
	return s
}

// runDrainGroup runs a reference drain scenario and those measured against
// it, interleaved, at the reference's size: a member may leave its size
// out, and what it declares must agree with the reference's (ratios compare
// runs of the same size). The queue's batch_size is the size's batch_size
// when a scenario declares one, else the configuration's own.
func runDrainGroup(ctx context.Context, opts SuiteOptions, group []scenariofile.Scenario) ([]report.ScenarioResult, error) {
	ref := group[0]
	size := scenariofile.EffectiveSize(ref, opts.Quick)
	cases := make([]DrainCase, len(group))
	for i, sc := range group {
		merged := sc
		merged.Size, merged.Quick = ref.Size.Merge(sc.Size), ref.Quick.Merge(sc.Quick)
		if s := scenariofile.EffectiveSize(merged, opts.Quick); s != size {
			return nil, fmt.Errorf("scenario %q must run at the size of %q, which it is measured against (ratios compare runs of the same size): %+v vs %+v",
				sc.Name, ref.Name, s, size)
		}
		cases[i] = DrainCase{Name: Variant(sc.Name), Description: sc.Description, Config: sc.Config, HandlerDelay: sc.HandlerDelay,
			Keys: sc.Keys, MeasureUntil: sc.MeasureUntil}
		cases[i].Config.Queues = slices.Clone(sc.Config.Queues)
		if size.BatchSize != 0 {
			for j := range cases[i].Config.Queues {
				cases[i].Config.Queues[j].BatchSize = size.BatchSize
			}
		}
	}
	if size.BatchSize == 0 {
		size.BatchSize = cases[0].Config.Queues[0].BatchSize
	}
	warmup := size.Warmup
	if warmup == 0 {
		warmup = -1
	}
	rep, err := RunDrain(ctx, DrainOptions{
		Pool: opts.Pool, Tasks: size.Tasks, Rounds: size.Rounds, Cases: cases,
		Workers: size.Workers, PoolSize: size.PoolSize, BatchSize: size.BatchSize,
		SchemaPrefix: opts.SchemaPrefix, Warmup: warmup, Progress: opts.Drain,
		Counted: opts.Counted,
	})
	if err != nil {
		return nil, fmt.Errorf("drain %s: %w", groupLabel(group), err)
	}
	out := make([]report.ScenarioResult, len(group))
	for i, sc := range group {
		out[i] = drainResult(sc, size, cases[i], rep)
	}
	return out, nil
}

// drainResult turns a case's runs into the scenario's metrics.
func drainResult(sc scenariofile.Scenario, size scenariofile.Size, c DrainCase, rep *DrainReport) report.ScenarioResult {
	r := report.ScenarioResult{
		Name: sc.Name, Description: sc.Description, Workload: sc.Workload, Against: sc.Against,
		File: sc.DeclRange.Filename, Size: size,
	}
	var runs []Run
	for _, run := range rep.Runs {
		if run.Variant == c.Name {
			runs = append(runs, run)
		}
	}
	r.Runs = runs
	metric := func(name string) report.MetricResult { return report.NewMetricResult(scenariofile.WorkloadDrain, name) }
	series := func(f func(Run) float64) []float64 {
		out := make([]float64, len(runs))
		for i, run := range runs {
			out[i] = f(run)
		}
		return out
	}

	r.Metrics = append(r.Metrics, report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput", series(func(run Run) float64 { return run.TasksPerSec })))
	// The Go side's CPU per task: a slower worker shows here first, where
	// the round's throughput hides it in the machine's noise.
	r.Metrics = append(r.Metrics, report.PerRoundMetric(scenariofile.WorkloadDrain, "go_cpu_per_task", series(func(run Run) float64 {
		if done := run.TasksPerSec * run.Seconds; done > 0 {
			return run.GoCPU / done
		}
		return 0
	})))
	for _, s := range rep.Variants {
		if s.Variant == c.Name && s.VsBaseline != nil && sc.Against != "" {
			m := metric("throughput_ratio")
			m.Samples, m.Value, m.N = s.VsBaseline.Ratios, s.VsBaseline.Median, s.VsBaseline.N
			m.Low, m.High, m.Level = s.VsBaseline.Low, s.VsBaseline.High, s.VsBaseline.Level
			r.Metrics = append(r.Metrics, m)
		}
	}

	// The ideal throughput of limited types whose handlers sleep: every
	// unit busy all the time.
	if c.HandlerDelay > 0 {
		ideal := 0.0
		allLimited := true
		for _, t := range c.Config.TaskTypes {
			allLimited = allLimited && t.Concurrency > 0
			ideal += float64(t.Concurrency) / c.HandlerDelay.Seconds()
		}
		if allLimited && ideal > 0 {
			r.Metrics = append(r.Metrics, report.PerRoundMetric(scenariofile.WorkloadDrain, "ideal_share",
				series(func(run Run) float64 { return run.TasksPerSec / ideal })))
		}
	}

	claims := make([][]time.Duration, len(runs))
	completes := make([][]time.Duration, len(runs))
	for i, run := range runs {
		claims[i], completes[i] = run.claims, run.completes
	}
	r.Metrics = append(r.Metrics,
		report.LatencyMetric(scenariofile.WorkloadDrain, "claim_p50", 0.5, claims),
		report.LatencyMetric(scenariofile.WorkloadDrain, "claim_p99", 0.99, claims),
		report.LatencyMetric(scenariofile.WorkloadDrain, "complete_p50", 0.5, completes),
		report.LatencyMetric(scenariofile.WorkloadDrain, "complete_p99", 0.99, completes))

	if c.limit() > 0 {
		m := metric("running_max")
		m.Samples = series(func(run Run) float64 { return float64(run.RunningMax) })
		for _, run := range runs {
			m.Value = max(m.Value, float64(run.RunningMax))
			m.N += run.RunningSamples
		}
		r.Metrics = append(r.Metrics, m)

		// Server time of the slot step (hand_off) per unit released.
		var totalMS float64
		units := 0
		s := metric("slot_release")
		for _, run := range runs {
			for _, f := range run.Functions {
				if f.Name == "hand_off" && run.LimitedTasks > 0 {
					totalMS += f.TotalMS
					units += run.LimitedTasks
					s.Samples = append(s.Samples, f.TotalMS/1000/float64(run.LimitedTasks))
				}
			}
		}
		if units > 0 {
			s.Value, s.N = totalMS/1000/float64(units), units
			r.Metrics = append(r.Metrics, s)
		}
	}
	return r
}
