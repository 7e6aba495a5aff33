package report

import (
	"fmt"
	"strings"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// ScaleTypesPerFile is the most task blocks one file of a scale run's
// generated configuration holds: about 660 kB, under spec.MaxFileSize.
const ScaleTypesPerFile = 10_000

// ScaleRun is what a scale run did (ScenarioResult.Scale).
type ScaleRun struct {
	// Queue is the generated types' queue; TaskTypes of them, each with
	// concurrency Limit, split into SlotRows slot groups in all.
	Queue     string `json:"queue"`
	TaskTypes int    `json:"task_types"`
	Limit     int    `json:"limit"`
	SlotRows  int    `json:"slot_rows"`
	// Files is the number of HCL files the configuration was written to,
	// Bytes their total size.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// FirstApply is the first apply to the fresh schema, NoopPlans the
	// plans of the same files after it, in order, and Change the apply of
	// the 1% change: ChangedTypes types (the first ones) given limit
	// ChangedLimit.
	FirstApply   ScaleStep   `json:"first_apply"`
	NoopPlans    []ScaleStep `json:"noop_plans"`
	Change       ScaleStep   `json:"change_1pct"`
	ChangedTypes int         `json:"changed_types"`
	ChangedLimit int         `json:"changed_limit"`
	// HeapBeforeBytes is the Go heap in use before the first apply, after
	// a garbage collection; HeapPeakBytes the most seen in HeapSamples
	// samples taken every 10 ms until the change was applied.
	HeapBeforeBytes uint64 `json:"heap_before_bytes"`
	HeapPeakBytes   uint64 `json:"heap_peak_bytes"`
	HeapSamples     int    `json:"heap_samples"`
}

// ScaleStep is one timed step of a scale run.
type ScaleStep struct {
	// Seconds is the whole step: loading the files, planning, rendering
	// the plan and, for an apply, applying it. LoadSeconds is the loading
	// alone (spec.Load).
	Seconds     float64 `json:"seconds"`
	LoadSeconds float64 `json:"load_seconds"`
	// Summary counts the plan's changes.
	Summary plan.Summary `json:"summary"`
	// HeapPeakBytes is the most Go heap in use sampled during the step
	// (not above the baseline: ScaleRun.HeapBeforeBytes).
	HeapPeakBytes uint64 `json:"heap_peak_bytes"`
}

// scaleSizeLine says how big a scale scenario ran: "100,000 task types,
// limit 1,000, 3 no-op plans".
func scaleSizeLine(s scenariofile.Size) string {
	return fmt.Sprintf("%s, limit %s, %s", textfmt.Plural(s.TaskTypes, "task type"), textfmt.Thousands(s.Limit),
		textfmt.Plural(s.Rounds, "no-op plan"))
}

// writeScaleMarkdown writes a scale run's configuration, each step's time
// with the part of it spent loading the files, and the heap it took.
func writeScaleMarkdown(b *strings.Builder, r *ScaleRun) {
	fmt.Fprintf(b, "**Reconciler at scale.** %s on queue `%s`, each limited to %s (%s in all), written as %s of at most %s task blocks (%s). Each step loads the files with `spec.Load`; an apply plans and applies as `pgseq apply --auto-approve`, a plan as `pgseq plan`, the plan rendered as it would be shown.\n\n",
		textfmt.Plural(r.TaskTypes, "task type"), r.Queue, textfmt.Thousands(r.Limit), textfmt.Plural(r.SlotRows, "slot row"),
		textfmt.Plural(r.Files, "HCL file"), textfmt.Thousands(ScaleTypesPerFile), formatBytes(float64(r.Bytes)))
	b.WriteString("| step | time | loading the files | plan | peak heap |\n|---|---:|---:|---|---:|\n")
	row := func(name string, st ScaleStep) {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, FormatValue(scenariofile.UnitSeconds, st.Seconds), FormatValue(scenariofile.UnitSeconds, st.LoadSeconds),
			ScaleSummary(st.Summary), formatBytes(float64(st.HeapPeakBytes)))
	}
	row("first apply", r.FirstApply)
	for i, st := range r.NoopPlans {
		row(fmt.Sprintf("no-op plan %d", i+1), st)
	}
	row(fmt.Sprintf("1%% change (%s to limit %s)", textfmt.Plural(r.ChangedTypes, "type"), textfmt.Thousands(r.ChangedLimit)), r.Change)
	b.WriteString("\n")
	peak := 0.0
	if r.HeapPeakBytes > r.HeapBeforeBytes {
		peak = float64(r.HeapPeakBytes - r.HeapBeforeBytes)
	}
	fmt.Fprintf(b, "Peak Go heap in use over the three steps: %s above the %s in use before them (%s, every 10 ms; heap objects, live or not yet swept — not the process's resident size). A step's peak heap is the most in use while it ran, those %s included.\n\n",
		formatBytes(peak), formatBytes(float64(r.HeapBeforeBytes)), textfmt.Plural(r.HeapSamples, "sample"), formatBytes(float64(r.HeapBeforeBytes)))
}

// ScaleSummary renders a plan's counts: "100,001 to add", "1,000 to
// change", "no changes".
func ScaleSummary(s plan.Summary) string {
	var parts []string
	for _, c := range []struct {
		n    int
		verb string
	}{{s.Add, "add"}, {s.Change, "change"}, {s.Destroy, "destroy"}} {
		if c.n > 0 {
			parts = append(parts, textfmt.Thousands(c.n)+" to "+c.verb)
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}
