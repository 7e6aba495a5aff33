package scenarios

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/render"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/spec"
)

// The scale workload's generated configuration and heap sampling.
const (
	// ScaleQueue is the one queue of the generated task types.
	ScaleQueue = "default"
	// scaleHeapInterval is how often the heap in use is sampled.
	scaleHeapInterval = 10 * time.Millisecond
	// scaleHeapMetric is the runtime/metrics sample read: the bytes of
	// heap objects, live or dead but not yet swept (the Go heap in use,
	// not the process's resident size).
	scaleHeapMetric = "/memory/classes/heap/objects:bytes"
)

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	// Pool is the database: the run's schema is created in it and dropped
	// at the end.
	Pool *pgxpool.Pool
	// Scenario is the scale scenario; only its labels are used (copied
	// into the result).
	Scenario scenariofile.Scenario
	// Size is the size to run at (scenariofile.EffectiveSize): TaskTypes,
	// Limit, and Rounds, the number of no-op plans.
	Size scenariofile.Size
	// SchemaPrefix names the run's schema, <prefix>_scale_<6 random hex
	// digits> (default "pgseq_bench").
	SchemaPrefix string
	// Step, when set, is told each step as it starts ("first apply").
	Step func(string)
}

// ScaleChange returns how many task types the 1% change of a scale run of
// types task types changes (1%, at least one) and the limit it gives
// them: half of limit, or 2 when limit is 1 (half of it would be no
// change).
func ScaleChange(types, limit int) (changed, newLimit int) {
	changed = max(types/100, 1)
	newLimit = limit / 2
	if limit == 1 {
		newLimit = 2
	}
	return changed, newLimit
}

// RunScale runs one scale scenario: it writes the generated configuration
// to a temporary directory, then in a fresh schema times its first apply,
// Size.Rounds no-op plans and the apply of the 1% change, each loading
// the files with spec.Load and planning as pgseq apply --auto-approve and
// pgseq plan do (the plan rendered to io.Discard), while sampling the Go
// heap in use. The schema and the files are removed before it returns,
// also on error.
func RunScale(ctx context.Context, opts ScaleOptions) (res *report.ScenarioResult, err error) {
	s, err := newScaler(opts)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgseq-bench-scale-")
	if err != nil {
		return nil, fmt.Errorf("creating the directory of the configuration files: %w", err)
	}
	defer os.RemoveAll(dir)
	defer func() {
		_, dropErr := opts.Pool.Exec(context.WithoutCancel(ctx), "DROP SCHEMA IF EXISTS "+pgx.Identifier{s.schema}.Sanitize()+" CASCADE")
		if dropErr != nil && err == nil {
			res, err = nil, fmt.Errorf("dropping schema %s: %w", s.schema, dropErr)
		}
	}()

	size := s.opts.Size
	run := &s.run
	if run.Files, run.Bytes, err = writeScaleConfig(dir, size.TaskTypes, size.Limit, 0, 0); err != nil {
		return nil, err
	}

	heap := startHeapSampler(scaleHeapInterval)
	defer heap.stop()

	s.step(fmt.Sprintf("first apply of %s", textfmt.Plural(size.TaskTypes, "task type")))
	heap.startStep()
	if run.FirstApply, err = s.apply(ctx, dir); err != nil {
		return nil, fmt.Errorf("first apply: %w", err)
	}
	run.FirstApply.HeapPeakBytes = heap.stepPeak()
	if want := (plan.Summary{Add: size.TaskTypes + 1}); run.FirstApply.Summary != want {
		return nil, fmt.Errorf("first apply: the plan had %s; want %s to add (the queue and %s)",
			report.ScaleSummary(run.FirstApply.Summary), textfmt.Thousands(want.Add), textfmt.Plural(size.TaskTypes, "task type"))
	}

	for round := range size.Rounds {
		s.step(fmt.Sprintf("no-op plan %d of %d", round+1, size.Rounds))
		heap.startStep()
		st, err := s.noopPlan(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("no-op plan %d: %w", round+1, err)
		}
		st.HeapPeakBytes = heap.stepPeak()
		run.NoopPlans = append(run.NoopPlans, st)
	}

	if _, _, err := writeScaleConfig(dir, size.TaskTypes, size.Limit, run.ChangedTypes, run.ChangedLimit); err != nil {
		return nil, err
	}
	s.step(fmt.Sprintf("1%% change: %s to limit %s", textfmt.Plural(run.ChangedTypes, "task type"), textfmt.Thousands(run.ChangedLimit)))
	heap.startStep()
	if run.Change, err = s.apply(ctx, dir); err != nil {
		return nil, fmt.Errorf("1%% change: %w", err)
	}
	run.Change.HeapPeakBytes = heap.stepPeak()
	if want := (plan.Summary{Change: run.ChangedTypes}); run.Change.Summary != want {
		return nil, fmt.Errorf("1%% change: the plan had %s; want %s to change",
			report.ScaleSummary(run.Change.Summary), textfmt.Thousands(run.ChangedTypes))
	}

	run.HeapBeforeBytes, run.HeapPeakBytes, run.HeapSamples = heap.stop()
	return s.result(), nil
}

// scaler runs one scale scenario.
type scaler struct {
	opts   ScaleOptions
	schema string
	run    report.ScaleRun
}

// newScaler checks the options.
func newScaler(opts ScaleOptions) (*scaler, error) {
	sc, size := opts.Scenario, opts.Size
	if opts.Pool == nil {
		return nil, errors.New("scenarios: ScaleOptions.Pool is required")
	}
	if sc.Workload != "" && sc.Workload != scenariofile.WorkloadScale {
		return nil, fmt.Errorf("scenario %q is a %s workload, not %s", sc.Name, sc.Workload, scenariofile.WorkloadScale)
	}
	if size.TaskTypes < 1 || size.TaskTypes > scenariofile.MaxScaleTypes || int64(size.Limit) < catalog.ConcurrencyRange.Min ||
		int64(size.Limit) > catalog.ConcurrencyRange.Max || size.Rounds < 1 {
		return nil, fmt.Errorf("scale scenario %q: task_types must be 1 to %d, limit 1 to %d and rounds at least 1, got %+v",
			sc.Name, scenariofile.MaxScaleTypes, catalog.ConcurrencyRange.Max, size)
	}
	if opts.SchemaPrefix == "" {
		opts.SchemaPrefix = "pgseq_bench"
	}
	schema := fmt.Sprintf("%s_scale_%s", opts.SchemaPrefix, randomHex(3))
	if len(schema) > 63 {
		return nil, fmt.Errorf("schema prefix %q is too long: the run's schema name would have %d bytes, PostgreSQL keeps 63", opts.SchemaPrefix, len(schema))
	}
	changed, newLimit := ScaleChange(size.TaskTypes, size.Limit)
	return &scaler{opts: opts, schema: schema, run: report.ScaleRun{
		Queue: ScaleQueue, TaskTypes: size.TaskTypes, Limit: size.Limit,
		SlotRows:     size.TaskTypes * len(catalog.SlotLayout(size.Limit)),
		ChangedTypes: changed, ChangedLimit: newLimit, NoopPlans: []report.ScaleStep{},
	}}, nil
}

func (s *scaler) step(what string) {
	if s.opts.Step != nil {
		s.opts.Step(what)
	}
}

// apply loads the configuration in dir, plans it and applies it as pgseq
// apply --auto-approve does: PlanAndApply without approval, the plan made
// under the apply lock and rendered before it is applied.
func (s *scaler) apply(ctx context.Context, dir string) (report.ScaleStep, error) {
	start := time.Now()
	cfg, err := loadScaleConfig(dir)
	if err != nil {
		return report.ScaleStep{}, err
	}
	loaded := time.Since(start)
	opts := applier.Options{
		Client: "pgseq bench", Version: "bench",
		Review: func(p *plan.Plan) error { return render.Plan(io.Discard, p) },
	}
	res, err := reconcile.PlanAndApply(ctx, s.opts.Pool, s.schema, cfg.State(), opts, nil)
	if err != nil {
		return report.ScaleStep{}, fmt.Errorf("applying the configuration to %s: %w", s.schema, err)
	}
	return report.ScaleStep{Seconds: time.Since(start).Seconds(), LoadSeconds: loaded.Seconds(), Summary: res.Summary}, nil
}

// noopPlan loads the configuration in dir and plans it as pgseq plan
// does, rendering the plan; the plan must have nothing to do.
func (s *scaler) noopPlan(ctx context.Context, dir string) (report.ScaleStep, error) {
	start := time.Now()
	cfg, err := loadScaleConfig(dir)
	if err != nil {
		return report.ScaleStep{}, err
	}
	loaded := time.Since(start)
	p, err := reconcile.PlanWithin(ctx, s.opts.Pool, s.schema, cfg.State(), applier.DefaultLockTimeout)
	if err != nil {
		return report.ScaleStep{}, fmt.Errorf("planning against %s: %w", s.schema, err)
	}
	if err := render.Plan(io.Discard, p); err != nil {
		return report.ScaleStep{}, fmt.Errorf("rendering the plan: %w", err)
	}
	st := report.ScaleStep{Seconds: time.Since(start).Seconds(), LoadSeconds: loaded.Seconds(), Summary: p.Summary}
	if !p.Empty() || len(p.Drift) > 0 {
		upgrade := ""
		if p.SchemaUpgrade != nil {
			upgrade = ", a schema upgrade"
		}
		return st, fmt.Errorf("planning the applied configuration again found %s%s and %s; want nothing to do",
			report.ScaleSummary(p.Summary), upgrade, textfmt.Plural(len(p.Drift), "drifted object"))
	}
	return st, nil
}

// loadScaleConfig loads the configuration files of dir with spec.Load, as
// the CLI does.
func loadScaleConfig(dir string) (*spec.Config, error) {
	cfg, diags := spec.Load(dir)
	if diags.HasErrors() {
		return nil, fmt.Errorf("loading the generated configuration: %w", diags)
	}
	return cfg, nil
}

// writeScaleConfig writes the scale workload's configuration to dir:
// queue.hcl with the queue, then types-NNNNNN.hcl files of at most
// report.ScaleTypesPerFile task blocks each, the types named t000001,
// t000002, … with concurrency limit, except the first changed ones, which
// get changedLimit. Files of an earlier call are overwritten. It returns the
// number of files and their total size.
func writeScaleConfig(dir string, types, limit, changed, changedLimit int) (files int, bytes int64, err error) {
	write := func(name string, fill func(w *bufio.Writer)) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("writing the configuration: %w", err)
		}
		w := bufio.NewWriterSize(f, 64<<10)
		fill(w)
		flushErr := w.Flush()
		closeErr := f.Close()
		if err := errors.Join(flushErr, closeErr); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("writing the configuration: %w", err)
		}
		if info.Size() > spec.MaxFileSize {
			return fmt.Errorf("writing %s: %d bytes, more than a configuration file may hold (%d)", path, info.Size(), spec.MaxFileSize)
		}
		files++
		bytes += info.Size()
		return nil
	}
	if err := write("queue.hcl", func(w *bufio.Writer) {
		fmt.Fprintf(w, "queue %q {\n}\n", ScaleQueue)
	}); err != nil {
		return 0, 0, err
	}
	for first := 1; first <= types; first += report.ScaleTypesPerFile {
		last := min(first+report.ScaleTypesPerFile-1, types)
		err := write(fmt.Sprintf("types-%06d.hcl", first), func(w *bufio.Writer) {
			for i := first; i <= last; i++ {
				l := limit
				if i <= changed {
					l = changedLimit
				}
				fmt.Fprintf(w, "task \"t%06d\" {\n  queue       = %q\n  concurrency = %d\n}\n", i, ScaleQueue, l)
			}
		})
		if err != nil {
			return 0, 0, err
		}
	}
	return files, bytes, nil
}

// result turns the run into the scenario's result.
func (s *scaler) result() *report.ScenarioResult {
	sc := s.opts.Scenario
	run := s.run
	r := &report.ScenarioResult{
		Name: sc.Name, Description: sc.Description, Workload: scenariofile.WorkloadScale, File: sc.DeclRange.Filename,
		Size: s.opts.Size, Scale: &run,
	}
	one := func(name string, v float64) report.MetricResult {
		m := report.NewMetricResult(scenariofile.WorkloadScale, name)
		m.Samples, m.Value, m.N = []float64{v}, v, 1
		return m
	}
	noop := make([]float64, len(run.NoopPlans))
	for i, st := range run.NoopPlans {
		noop[i] = st.Seconds
	}
	peak := 0.0
	if run.HeapPeakBytes > run.HeapBeforeBytes {
		peak = float64(run.HeapPeakBytes - run.HeapBeforeBytes)
	}
	r.Metrics = append(r.Metrics,
		one("first_apply", run.FirstApply.Seconds),
		report.PerRoundMetric(scenariofile.WorkloadScale, "noop_plan", noop),
		one("change_1pct", run.Change.Seconds),
		one("peak_heap", peak))
	return r
}

// heapSampler samples the Go heap in use (scaleHeapMetric) in a goroutine
// of its own and keeps the largest value, over the whole run and over the
// current step.
type heapSampler struct {
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	sample []metrics.Sample // used under mu
	before uint64

	mu      sync.Mutex
	peak    uint64
	step    uint64
	samples int
}

// startHeapSampler collects garbage, reads the heap in use as the
// baseline, and samples it every interval until stop.
func startHeapSampler(interval time.Duration) *heapSampler {
	h := &heapSampler{done: make(chan struct{}), sample: []metrics.Sample{{Name: scaleHeapMetric}}}
	runtime.GC()
	h.before = h.read()
	h.peak = h.before
	h.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				h.observe()
			}
		}
	})
	return h
}

// read returns the heap in use now (0 if the runtime does not report it).
// The caller holds mu, or is the only user of h.
func (h *heapSampler) read() uint64 {
	metrics.Read(h.sample)
	if h.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return h.sample[0].Value.Uint64()
}

// observe takes one sample.
func (h *heapSampler) observe() {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.read()
	h.peak = max(h.peak, v)
	h.step = max(h.step, v)
	h.samples++
}

// startStep starts a step: its peak counts from the heap in use now, which
// counts towards the run's peak too (a step's peak is never above it).
func (h *heapSampler) startStep() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.step = h.read()
	h.peak = max(h.peak, h.step)
}

// stepPeak takes one sample and returns the most heap in use since
// startStep.
func (h *heapSampler) stepPeak() uint64 {
	h.observe()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.step
}

// stop ends the sampling with one last sample and returns the baseline,
// the peak and the number of samples. Calls after the first only return
// them.
func (h *heapSampler) stop() (before, peak uint64, samples int) {
	h.once.Do(func() {
		close(h.done)
		h.wg.Wait()
		h.observe()
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.before, h.peak, h.samples
}
