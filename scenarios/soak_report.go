package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/textfmt"
)

// soakSizeLine says how big a soak scenario ran.
func soakSizeLine(s Size) string {
	return fmt.Sprintf("%s at %s tasks/s, %s × %s, batch %d", s.Duration, textfmt.Thousands(s.Rate),
		textfmt.Plural(s.Workers, "worker"), textfmt.Plural(s.PoolSize, "handler"), s.BatchSize)
}

// soakPurgeExpected says whether a run was long enough for the leader's
// maintenance to purge: completed tasks older than the retention existed
// for at least two maintenance intervals before it ended.
func (r *SoakRun) soakPurgeExpected() bool {
	return r.WarmupSeconds+r.Seconds > r.RetentionCompletedSeconds+2*r.MaintenanceIntervalSeconds
}

// writeSoakMarkdown writes a soak run's settings and its series as a
// table, one row per sample.
func writeSoakMarkdown(b *strings.Builder, r *SoakRun) {
	seconds := func(s float64) string { return time.Duration(s * float64(time.Second)).String() }
	fmt.Fprintf(b, "**Over time.** Sampled every %s after a warm-up of %s; first and last windows of %s. Queue `%s`: completed tasks kept %s, the leader's maintenance every %s; %s enqueued in turn, %d of them limited.",
		seconds(r.IntervalSeconds), seconds(r.WarmupSeconds), seconds(r.WindowSeconds), r.Queue,
		seconds(r.RetentionCompletedSeconds), seconds(r.MaintenanceIntervalSeconds), textfmt.Plural(r.TaskTypes, "task type"), r.Limited)
	if r.HoldSnapshot {
		b.WriteString(" **A separate session held a REPEATABLE READ snapshot for the whole run**: vacuum could remove nothing.")
	}
	b.WriteString("\n\n")
	if len(r.Storage) > 0 {
		b.WriteString("Storage parameters set on the fresh schema: ")
		for i, st := range r.Storage {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(b, "`%s`", st)
		}
		b.WriteString(".\n\n")
	}
	fmt.Fprintf(b, "%s enqueued, %s completed, %s purged by the leader's maintenance",
		textfmt.Thousands(r.Enqueued), textfmt.Thousands(r.Completed), textfmt.Thousands(r.Purged))
	if r.Failed > 0 {
		fmt.Fprintf(b, ", %s failed", textfmt.Plural(int(r.Failed), "handler"))
	}
	b.WriteString(".")
	if r.Purged == 0 && r.soakPurgeExpected() {
		b.WriteString(" **Nothing was purged although completed tasks outlived their retention**: the leader's maintenance did not run, or failed.")
	}
	b.WriteString("\n\n")
	if len(r.Samples) == 0 {
		return
	}
	b.WriteString("| t | claims | claim p50 | claim p99 | enqueue p99 | completed/s | backlog | tasks live | tasks dead | slots dead | size | autovacuums tasks / slots | slot updates HOT | xmin age |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Samples {
		hot := "–"
		if s.Slots.Updates > 0 {
			hot = fmt.Sprintf("%.0f%%", 100*float64(s.Slots.HotUpdates)/float64(s.Slots.Updates))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d / %d | %s | %s |\n",
			seconds(s.Seconds), textfmt.Thousands(s.Claims), soakLatency(s.Claims, s.ClaimP50), soakLatency(s.Claims, s.ClaimP99),
			soakLatency(1, s.EnqueueP99), textfmt.ThousandsFloat(s.CompletedPerSec), textfmt.Thousands(s.Backlog),
			textfmt.Thousands(s.Tasks.Live), textfmt.Thousands(s.Tasks.Dead), textfmt.Thousands(s.Slots.Dead),
			formatBytes(float64(s.Tasks.Bytes+s.Slots.Bytes)), s.Tasks.Autovacuums, s.Slots.Autovacuums, hot,
			textfmt.Thousands(s.XminAge))
	}
	b.WriteString("\n")
}

// soakLatency renders a sample's percentile, "–" without round trips.
func soakLatency(n int, v float64) string {
	if n == 0 || v == 0 {
		return "–"
	}
	return formatValue(UnitSeconds, v)
}

// Summary is the sample on one line, for progress output: claim p50 and
// p99, tasks completed per second, dead tuples of tasks and
// concurrency_slots, and their total size.
func (s SoakSample) Summary() string {
	return fmt.Sprintf("claim p50 %s, p99 %s; %s tasks/s; dead tuples %s + %s; %s",
		soakLatency(s.Claims, s.ClaimP50), soakLatency(s.Claims, s.ClaimP99), textfmt.ThousandsFloat(s.CompletedPerSec),
		textfmt.Thousands(s.Tasks.Dead), textfmt.Thousands(s.Slots.Dead), formatBytes(float64(s.Tasks.Bytes+s.Slots.Bytes)))
}
