package scenarios

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// DrainReport is the drain scenario's result, written to results/drain.json
// and rendered as results/drain.md.
type DrainReport struct {
	Scenario    string             `json:"scenario"`
	StartedAt   time.Time          `json:"started_at"`
	Seconds     float64            `json:"seconds"`
	Environment report.Environment `json:"environment"`
	Settings    DrainSettings      `json:"settings"`
	// Variants summarise the rounds per variant, in run order.
	Variants []VariantSummary `json:"variants"`
	// Checks are the scenario's targets and whether they were met.
	Checks []Check `json:"checks"`
	// Runs are the measured runs in the order they ran (the warm-up is not
	// among them).
	Runs []Run `json:"runs"`
}

// DrainSettings are the scenario's parameters.
type DrainSettings struct {
	// Driver is what drained the tasks: "worker" (in-process
	// queue.Workers) or "sql" (claimers calling the SQL API).
	Driver   Driver    `json:"driver"`
	Tasks    int       `json:"tasks"`
	Rounds   int       `json:"rounds"`
	Variants []Variant `json:"variants"`
	// Reference is the variant the others' ratios compare with.
	Reference       Variant `json:"reference"`
	Workers         int     `json:"workers"`
	PoolSize        int     `json:"pool_size"`
	BatchSize       int     `json:"batch_size"`
	FlushSize       int     `json:"flush_size"`
	FlushIntervalMS float64 `json:"flush_interval_ms"`
	Warmup          int     `json:"warmup_tasks"`
}

// VariantSummary is one variant over all rounds.
type VariantSummary struct {
	Variant     Variant `json:"variant"`
	Description string  `json:"description"`
	// TasksPerSec are the rounds' throughputs, in round order, and
	// MedianTasksPerSec their median.
	TasksPerSec       []float64 `json:"tasks_per_sec"`
	MedianTasksPerSec float64   `json:"median_tasks_per_sec"`
	// VsBaseline compares the variant with the baseline of the same round;
	// nil for the baseline itself or without one.
	VsBaseline *stats.Ratio `json:"vs_baseline,omitempty"`
	// Claim and Complete pool the latencies of all rounds.
	Claim    stats.Latency `json:"claim"`
	Complete stats.Latency `json:"complete"`
}

// Check is one target of the scenario.
type Check struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	// Status is MET, MISSED or INCONCLUSIVE: a ratio is judged on the
	// confidence interval of its median, as bench run judges thresholds.
	Status report.Status `json:"status"`
	// Met is Status == MET (kept for readers of older drain.json files).
	Met bool `json:"met"`
}

// status is the check's status, from Met for a check read from a file
// written before Status existed.
func (c Check) status() report.Status {
	if c.Status != "" {
		return c.Status
	}
	if c.Met {
		return report.StatusMet
	}
	return report.StatusMissed
}

// writeChecks writes the Markdown table of the checks.
func writeChecks(b *strings.Builder, checks []Check) {
	fmt.Fprintf(b, "\n## Targets\n\nA ratio is judged on the confidence interval of its median: MET when the whole interval passes, "+
		"MISSED when it all fails, INCONCLUSIVE when it straddles the target (the run was too noisy to decide).\n\n"+
		"| check | target | measured | status |\n|---|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.Name, c.Target, c.Measured, c.status())
	}
}

// pointCheck is a check judged on one value.
func pointCheck(name, target, measured string, met bool) Check {
	st := report.StatusMissed
	if met {
		st = report.StatusMet
	}
	return Check{Name: name, Target: target, Measured: measured, Status: st, Met: met}
}

// ratioCheck judges a ratio against its minimum on the confidence
// interval of the median: MET when the whole interval passes, MISSED when
// the whole interval fails, INCONCLUSIVE when it straddles the minimum.
func ratioCheck(name, target string, r *stats.Ratio, minimum float64) Check {
	c := Check{Name: name, Target: target, Measured: ratioLine(r)}
	low, high := r.Median, r.Median
	if r.Level > 0 {
		low, high = r.Low, r.High
	}
	switch {
	case low >= minimum:
		c.Status = report.StatusMet
	case high < minimum:
		c.Status = report.StatusMissed
	default:
		c.Status = report.StatusInconclusive
	}
	c.Met = c.Status == report.StatusMet
	return c
}

// Targets of the drain scenario: source 002's acceptance criteria (all
// types limited: < 15% slower; one limited among many: < 5% overhead; slot
// work < 1 ms), and pgseq's own for many limited types and a binding limit.
const (
	TargetTasksPerSec = 20_000 // baseline, end to end
	TargetEnabled     = 0.85   // enabled / baseline: at most 15% slower (aim: 0.95)
	TargetMixed       = 0.95   // mixed / baseline: at most 5% slower (aim: 0.99)
	TargetMany        = 0.80   // many / baseline: 1,000 limited types
	TargetBinding     = 0.90   // binding: share of the ideal limit/handler time
	TargetSlotMS      = 1.0    // server time of the slot step per unit (hand_off)
)

func (r *DrainReport) summarise(cases []DrainCase) {
	ref := r.Settings.Reference
	byRound := map[Variant]map[int]float64{}
	for _, v := range r.Settings.Variants {
		byRound[v] = map[int]float64{}
	}
	for _, run := range r.Runs {
		byRound[run.Variant][run.Round] = run.TasksPerSec
	}
	for _, v := range r.Settings.Variants {
		s := VariantSummary{Variant: v, Description: string(v)}
		for _, c := range cases {
			if c.Name == v {
				s.Description = c.Description
			}
		}
		var claims, completes []time.Duration
		var ratios []float64
		for _, run := range r.Runs {
			if run.Variant != v {
				continue
			}
			s.TasksPerSec = append(s.TasksPerSec, run.TasksPerSec)
			claims = append(claims, run.claims...)
			completes = append(completes, run.completes...)
			if base, ok := byRound[ref][run.Round]; ok && v != ref {
				ratios = append(ratios, run.TasksPerSec/base)
			}
		}
		s.MedianTasksPerSec = stats.Median(s.TasksPerSec)
		s.Claim, s.Complete = stats.NewLatency(claims), stats.NewLatency(completes)
		if len(ratios) > 0 {
			rs := stats.NewRatio(ratios)
			s.VsBaseline = &rs
		}
		r.Variants = append(r.Variants, s)
	}
	r.Checks = nil
	for _, s := range r.Variants {
		switch s.Variant {
		case Baseline:
			r.Checks = append(r.Checks, pointCheck("baseline throughput", fmt.Sprintf("≥ %s tasks/s", textfmt.ThousandsFloat(TargetTasksPerSec)),
				fmt.Sprintf("%s tasks/s (median)", textfmt.ThousandsFloat(s.MedianTasksPerSec)),
				s.MedianTasksPerSec >= TargetTasksPerSec))
		case Binding:
			r.Checks = append(r.Checks, r.bindingChecks(cases)...)
		case Enabled, Mixed, Many:
			if s.VsBaseline == nil {
				continue
			}
			target := map[Variant]float64{Enabled: TargetEnabled, Mixed: TargetMixed, Many: TargetMany}[s.Variant]
			r.Checks = append(r.Checks, ratioCheck(string(s.Variant)+" vs baseline",
				fmt.Sprintf("ratio ≥ %.2f (≤ %.0f%% slower)", target, (1-target)*100), s.VsBaseline, target))
		}
		// Source 002's "slot lock/release < 1 ms each" is judged on the slot
		// step below, per unit. A claim or completion round trip of a whole
		// batch (200 tasks, a durable commit) is no slot operation, and the
		// baseline has none: the latency table reports them, no threshold.
		units := 0
		for _, run := range r.Runs {
			if run.Variant == s.Variant {
				units += run.LimitedTasks
			}
		}
		// The slot step is hand_off, and for reserved successors
		// (migration 036) promote_started, which passes a finished task's
		// unit to the successor started in its place.
		var slotMS float64
		var slotCalls int64
		var steps []string
		for _, f := range r.functionSummary(s.Variant) {
			if (f.Name != "hand_off" && f.Name != "promote_started") || f.Calls == 0 {
				continue
			}
			slotMS += f.TotalMS
			slotCalls += f.Calls
			steps = append(steps, f.Name)
		}
		if slotCalls > 0 && units > 0 {
			perUnit := slotMS / float64(units)
			r.Checks = append(r.Checks, pointCheck(fmt.Sprintf("%s slot release (%s: server time per unit released)", s.Variant, strings.Join(steps, " + ")),
				fmt.Sprintf("< %.0f ms", TargetSlotMS),
				fmt.Sprintf("%s per unit (%s units; %s per call of %.0f units on average)", micros(perUnit*1000),
					textfmt.Thousands(units), micros(slotMS/float64(slotCalls)*1000), float64(units)/float64(slotCalls)),
				perUnit < TargetSlotMS))
		}
	}
}

// bindingChecks judge the binding variant's runs: the limit never exceeded
// in any sample, and the throughput as a share of the ideal, its limit over
// its handlers' delay (cases holds the binding case).
func (r *DrainReport) bindingChecks(cases []DrainCase) []Check {
	var binding DrainCase
	for _, c := range cases {
		if c.Name == Binding {
			binding = c
		}
	}
	limit := binding.limit()
	ideal := float64(limit) / binding.HandlerDelay.Seconds()
	var shares []float64
	maxRunning, samples, maxHandlers := 0, 0, 0
	for _, run := range r.Runs {
		if run.Variant != Binding {
			continue
		}
		shares = append(shares, run.TasksPerSec/ideal)
		maxRunning = max(maxRunning, run.RunningMax)
		samples += run.RunningSamples
		maxHandlers = max(maxHandlers, run.HandlersMax)
	}
	share := stats.Median(shares)
	checks := []Check{
		pointCheck("binding: running never above the limit", fmt.Sprintf("≤ %d in every sample", limit),
			fmt.Sprintf("max %d in %s samples", maxRunning, textfmt.Thousands(samples)),
			maxRunning <= limit && samples > 0),
	}
	if maxHandlers > 0 {
		// Counted by the Go workers themselves (not by the sql driver).
		checks = append(checks, pointCheck("binding: handlers never above the limit", fmt.Sprintf("≤ %d at once", limit),
			fmt.Sprintf("max %d", maxHandlers), maxHandlers <= limit))
	}
	return append(checks,
		pointCheck("binding: throughput", fmt.Sprintf("≥ %.0f%% of the ideal %s tasks/s", TargetBinding*100, textfmt.ThousandsFloat(ideal)),
			fmt.Sprintf("%.1f%% (median of %d)", share*100, len(shares)),
			share >= TargetBinding))
}

// functionSummary pools the server-side statistics of a variant's runs.
func (r *DrainReport) functionSummary(v Variant) []FunctionStat {
	var out []FunctionStat
	for _, run := range r.Runs {
		if run.Variant != v {
			continue
		}
		for _, f := range run.Functions {
			i := slices.IndexFunc(out, func(g FunctionStat) bool { return g.Name == f.Name })
			if i < 0 {
				out = append(out, FunctionStat{Name: f.Name})
				i = len(out) - 1
			}
			out[i].Calls += f.Calls
			out[i].TotalMS += f.TotalMS
			out[i].SelfMS += f.SelfMS
		}
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *DrainReport) WriteJSON(w io.Writer) error { return report.WriteJSON(w, r) }

// WriteMarkdown writes the report for people.
func (r *DrainReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := r.Settings
	fmt.Fprintf(&b, "# Drain benchmark\n\n")
	drainedBy := fmt.Sprintf("%s (pool size %d, batch size %d, completions flushed every %s or %.1f ms)",
		textfmt.Plural(s.Workers, "in-process worker"), s.PoolSize, s.BatchSize, textfmt.Plural(s.FlushSize, "task"), s.FlushIntervalMS)
	reproduce := fmt.Sprintf("--workers %d --pool-size %d --batch-size %d --flush-size %d --flush-interval %s",
		s.Workers, s.PoolSize, s.BatchSize, s.FlushSize, time.Duration(s.FlushIntervalMS*float64(time.Millisecond)))
	if s.Driver == DriverSQL {
		drainedBy, reproduce = s.sqlDrainedBy(), fmt.Sprintf("--workers %d --batch-size %d", s.Workers, s.BatchSize)
	}
	fmt.Fprintf(&b, "%s per run, one queue, drained end to end (claim → handler → complete, durable commits) by %s. "+
		"%s, variants interleaved (%s) "+
		"after an unreported %s-task warm-up; each run in a fresh schema, seeded with `enqueue_batch` in chunks of %s, "+
		"then ANALYZE and CHECKPOINT before the clock starts.\n\n",
		textfmt.Plural(s.Tasks, "no-op task"), drainedBy,
		textfmt.Plural(s.Rounds, "round"), joinVariants(s.Variants), textfmt.Thousands(s.Warmup), textfmt.ThousandsFloat(seedChunk))
	driver := ""
	if s.Driver != "" {
		driver = " --driver " + string(s.Driver)
	}
	fmt.Fprintf(&b, "Reproduce: `pgseq bench drain%s --tasks %d --rounds %d --variants %s %s`\n\n",
		driver, s.Tasks, s.Rounds, joinVariantsComma(s.Variants), reproduce)
	e := r.Environment
	fmt.Fprintf(&b, "Run %s, %.0f s in all. %s on the same machine; %s (%s); %s, GOMAXPROCS %d. Server settings: %s.\n\n",
		r.StartedAt.Format(time.RFC3339), r.Seconds, report.FirstWords(e.Postgres, 2), textfmt.Plural(e.NumCPU, "CPU"), orUnknown(e.CPUModel), e.GoVersion, e.GOMAXPROCS,
		report.SettingsLine(e.PostgresSettings))

	fmt.Fprintf(&b, "## Throughput\n\n")
	fmt.Fprintf(&b, "Ratios compare each round's variant with the baseline of the same round; the interval is a distribution-free "+
		"confidence interval of the median ratio (its level depends on the number of rounds), beside the geometric mean with its "+
		"95%% Student-t interval.\n\n")
	fmt.Fprintf(&b, "| variant | configuration | ratio vs baseline (median) | CI of the median | geometric mean [95%% CI] | tasks/s (median) | tasks/s per round |\n")
	fmt.Fprintf(&b, "|---|---|---:|---|---|---:|---|\n")
	for _, v := range r.Variants {
		ratio, ci, geo := "1 (reference)", "", ""
		if v.VsBaseline != nil {
			x := v.VsBaseline
			ratio = fmt.Sprintf("%.3f", x.Median)
			ci = "– (one round)"
			if x.N >= 2 {
				ci = fmt.Sprintf("%.3f – %.3f (%s)", x.Low, x.High, stats.FormatLevel(x.Level))
				geo = fmt.Sprintf("%.3f [%.3f – %.3f]", x.GeoMean, x.GeoLow, x.GeoHigh)
			}
		}
		per := make([]string, len(v.TasksPerSec))
		for i, t := range v.TasksPerSec {
			per[i] = textfmt.ThousandsFloat(t)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", v.Variant, v.Description, ratio, ci, geo,
			textfmt.ThousandsFloat(v.MedianTasksPerSec), strings.Join(per, ", "))
	}

	fmt.Fprintf(&b, "\n## Round-trip latency\n\nAs the workers saw them (network and queueing included), all rounds pooled. `complete` releases the slots of limited tasks.\n\n")
	fmt.Fprintf(&b, "| variant | claim p50 | claim p99 | claim max | claims | complete p50 | complete p99 | complete max | completes |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Variant,
			micros(v.Claim.P50), micros(v.Claim.P99), micros(v.Claim.Max), textfmt.Thousands(v.Claim.Count),
			micros(v.Complete.P50), micros(v.Complete.P99), micros(v.Complete.Max), textfmt.Thousands(v.Complete.Count))
	}

	fmt.Fprintf(&b, "\n## Server time of the runtime functions\n\n"+
		"Mean time per call inside PostgreSQL (`pg_stat_user_functions`, all rounds pooled; `total` includes the functions a function calls). "+
		"The claim reads no slot row: its cost is the fast path's for every variant, and its slot step costs nothing. `hand_off` is the slot step of `complete` and `complete_and_take` "+
		"(the units of the finished tasks pass to waiting tasks or go back), with `promote_started` in `complete_and_reserve` (a finished task's unit passes to the reserved successor started in its place); "+
		"`take_units` the slot step of `enqueue`.\n\n")
	fmt.Fprintf(&b, "| variant | function | calls | mean per call (total) | mean per call (self) |\n|---|---|---:|---:|---:|\n")
	for _, v := range r.Variants {
		for _, f := range r.functionSummary(v.Variant) {
			self := 0.0
			if f.Calls > 0 {
				self = f.SelfMS / float64(f.Calls)
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", v.Variant, f.Name, textfmt.Thousands(f.Calls),
				micros(f.MeanMS()*1000), micros(self*1000))
		}
	}

	writeChecks(&b, r.Checks)

	fmt.Fprintf(&b, "\n## Runs\n\n`last 1%%`: time the last 1%% of the tasks took. `short claims`: claims that returned fewer tasks than asked for (a limit bound). "+
		"`host CPU busy`: all CPUs, this process and PostgreSQL included; `server CPU`: the PostgreSQL server's share of all CPUs; `other CPU`: everything else on the host but this process and the server (competing load). `other sessions`: the most sessions of other applications seen active on the server at once (sampled every 100 ms) — load that competed with the run. `running max/mean (limit)`: the most tasks of one type seen running at once, and the mean, sampled through the drain.\n\n| round | variant | tasks/s | drain s | last 1%% s | seed s | tasks/claim | short claims | empty claims | tasks/complete | running max/mean (limit) | Go CPU s | host CPU busy | server CPU | other CPU | other sessions |\n")
	fmt.Fprintf(&b, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n")
	for _, run := range r.Runs {
		busy := pctOrUnknown(run.HostCPUBusy)
		limit := "none"
		if run.Limit > 0 {
			limit = textfmt.Thousands(run.Limit)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %.2f | %.2f | %.2f | %.1f | %d | %d | %.1f | %d / %.1f (%s) | %.2f | %s | %s | %s | %d |\n", run.Round, run.Variant,
			textfmt.ThousandsFloat(run.TasksPerSec), run.Seconds, run.TailSeconds, run.SeedSeconds, run.MeanClaimSize, run.ShortClaims, run.EmptyClaims,
			run.MeanCompleteSize, run.RunningMax, run.RunningMean, limit, run.GoCPU, busy, pctOrUnknown(run.ServerCPU), pctOrUnknown(run.OtherCPU), run.OtherSessions)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ratioLine(r *stats.Ratio) string {
	if r.N < 2 {
		return fmt.Sprintf("%.3f (one round, no interval)", r.Median)
	}
	return fmt.Sprintf("%.3f median, CI %.3f–%.3f (%s)", r.Median, r.Low, r.High, stats.FormatLevel(r.Level))
}

func joinVariantsComma(vs []Variant) string {
	return strings.ReplaceAll(joinVariants(vs), ", ", ",")
}

func joinVariants(vs []Variant) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "model unknown"
	}
	return s
}

func pctOrUnknown(x float64) string {
	if x < 0 {
		return "?"
	}
	return pct(x)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }

// micros formats microseconds.
func micros(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}
