package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// SoakRun is what a soak run did and the series it sampled
// (ScenarioResult.Soak).
type SoakRun struct {
	// Seconds is the measured run's length, WarmupSeconds the warm-up's
	// before it, IntervalSeconds the time between samples and
	// WindowSeconds the length of the first and last windows the
	// claim_p99_first and claim_p99_last metrics pool.
	Seconds         float64 `json:"seconds"`
	WarmupSeconds   float64 `json:"warmup_seconds"`
	IntervalSeconds float64 `json:"interval_seconds"`
	WindowSeconds   float64 `json:"window_seconds"`
	// Rate is the enqueue rate asked for, in tasks per second.
	Rate int `json:"rate"`
	// Queue is the queue worked; RetentionCompletedSeconds and
	// LeaderLeaseSeconds its settings, MaintenanceIntervalSeconds how often
	// the leader ran maintenance (leader_lease/3).
	Queue                      string  `json:"queue"`
	RetentionCompletedSeconds  float64 `json:"retention_completed_seconds"`
	LeaderLeaseSeconds         float64 `json:"leader_lease_seconds"`
	MaintenanceIntervalSeconds float64 `json:"maintenance_interval_seconds"`
	// TaskTypes is the number of task types enqueued in turn, Limited how
	// many of them have a concurrency limit.
	TaskTypes int `json:"task_types"`
	Limited   int `json:"limited_types"`
	// HoldSnapshot says a separate session held a REPEATABLE READ snapshot
	// from before the warm-up to the end.
	HoldSnapshot bool `json:"hold_snapshot"`
	// Storage are the storage statements run on the fresh schema, with
	// the schema left out (ALTER TABLE tasks SET (fillfactor = 90)).
	Storage []string `json:"storage,omitempty"`
	// Enqueued and Completed count the tasks enqueued and completed during
	// the measured run; Purged the tasks deleted from tasks meanwhile
	// (only the leader's maintenance deletes them: retention); Failed the
	// handlers that failed (none expected).
	Enqueued  int64 `json:"enqueued"`
	Completed int64 `json:"completed"`
	Purged    int64 `json:"purged"`
	Failed    int64 `json:"failed"`
	// Samples are taken every IntervalSeconds, in order.
	Samples []SoakSample `json:"samples"`
}

// SoakSample is one sample of a soak run: the interval that ended at
// Seconds, and the tables' state then.
type SoakSample struct {
	// Seconds since the measured run started.
	Seconds float64 `json:"t"`
	// Claims is the number of claim round trips in the interval (empty
	// claims included), ClaimP50 and ClaimP99 their percentiles in
	// seconds (0 without claims).
	Claims   int     `json:"claims"`
	ClaimP50 float64 `json:"claim_p50"`
	ClaimP99 float64 `json:"claim_p99"`
	// EnqueueP99 is the 99th percentile of the producer's enqueue_batch
	// round trips in the interval, in seconds.
	EnqueueP99 float64 `json:"enqueue_p99"`
	// Enqueued and Completed are the tasks enqueued and completed in the
	// interval, CompletedPerSec the latter per second.
	Enqueued        int64   `json:"enqueued"`
	Completed       int64   `json:"completed"`
	CompletedPerSec float64 `json:"completed_per_sec"`
	// Backlog is how many enqueued tasks were not completed yet: near a
	// batch or two when the workers keep up, growing when the rate is
	// above what they drain.
	Backlog int64 `json:"backlog"`
	// Tasks and Slots are the state of the tasks and concurrency_slots
	// tables.
	Tasks SoakTable `json:"tasks"`
	Slots SoakTable `json:"concurrency_slots"`
	// XminAge is how many transactions the oldest snapshot of the
	// database's other sessions is behind (what vacuum may not clean
	// past), OldestXactSeconds how long the oldest open transaction has
	// run.
	XminAge           int64   `json:"xmin_age"`
	OldestXactSeconds float64 `json:"oldest_xact_seconds"`
}

// SoakTable is a table's state in a sample, as pg_stat_user_tables and
// pg_total_relation_size report it. The counts after Bytes are since the
// schema was created (they include the warm-up).
type SoakTable struct {
	Live  int64 `json:"live"`
	Dead  int64 `json:"dead"`
	Bytes int64 `json:"bytes"`
	// Vacuums counts manual vacuums, Autovacuums and Autoanalyzes the
	// autovacuum daemon's.
	Vacuums      int64 `json:"vacuums"`
	Autovacuums  int64 `json:"autovacuums"`
	Autoanalyzes int64 `json:"autoanalyzes"`
	// Updates counts updated rows, HotUpdates those updated in place
	// (heap-only: no new index entries), Deletes deleted rows.
	Updates    int64 `json:"updates"`
	HotUpdates int64 `json:"hot_updates"`
	Deletes    int64 `json:"deletes"`
}

// soakSizeLine says how big a soak scenario ran.
func soakSizeLine(s scenariofile.Size) string {
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
	return FormatValue(scenariofile.UnitSeconds, v)
}

// Summary is the sample on one line, for progress output: claim p50 and
// p99, tasks completed per second, dead tuples of tasks and
// concurrency_slots, and their total size.
func (s SoakSample) Summary() string {
	return fmt.Sprintf("claim p50 %s, p99 %s; %s tasks/s; dead tuples %s + %s; %s",
		soakLatency(s.Claims, s.ClaimP50), soakLatency(s.Claims, s.ClaimP99), textfmt.ThousandsFloat(s.CompletedPerSec),
		textfmt.Thousands(s.Tasks.Dead), textfmt.Thousands(s.Slots.Dead), formatBytes(float64(s.Tasks.Bytes+s.Slots.Bytes)))
}
