package scenarios

import (
	"fmt"
	"strings"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// scaleSizeLine says how big a scale scenario ran: "100,000 task types,
// limit 1,000, 3 no-op plans".
func scaleSizeLine(s Size) string {
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
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, formatValue(UnitSeconds, st.Seconds), formatValue(UnitSeconds, st.LoadSeconds),
			scaleSummary(st.Summary), formatBytes(float64(st.HeapPeakBytes)))
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

// scaleSummary renders a plan's counts: "100,001 to add", "1,000 to
// change", "no changes".
func scaleSummary(s plan.Summary) string {
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
