// Package report holds what a benchmark run measured and renders it: the
// results of its scenarios (SuiteResult) and their thresholds judged
// (JudgeAll, Verdict), written as JSON and Markdown, the rounds of several
// runs merged (MergeRounds), and the formatting of metric values that the
// reports, the CLI and the comparisons share.
package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// ResultFormatVersion is the version of the suite result document
// (SuiteResult). The major number changes when a field changes meaning or
// goes away; readers refuse a major they do not know. 1.1 added the soak
// workload's series (ScenarioResult.Soak), 1.2 the scale workload's run
// (ScenarioResult.Scale) and its sizes (scenariofile.Size.TaskTypes and
// .Limit).
const ResultFormatVersion = "1.2"

// SuiteResult is one `pgseq bench run`: every scenario it ran, with every
// round's samples, and the verdict. It is written as JSON (run.json) and
// rendered as Markdown (run.md) for a pull-request comment.
type SuiteResult struct {
	FormatVersion string    `json:"format_version"`
	StartedAt     time.Time `json:"started_at"`
	Seconds       float64   `json:"seconds"`
	// Command is the exact command line of the run.
	Command []string `json:"command"`
	// Quick says the scenarios ran at their --quick sizes.
	Quick       bool        `json:"quick"`
	Environment Environment `json:"environment"`
	// LoadBefore and LoadAfter are the host's 1-minute load averages when
	// the run started and ended (-1 when unknown).
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
	// Counted says the run sent the server nothing but its work, for bench
	// ab --instructions to count (SuiteOptions.Counted).
	Counted   bool             `json:"counted,omitempty"`
	Scenarios []ScenarioResult `json:"scenarios"`
	// Verdict is VerdictMet when every threshold was met, VerdictMissed
	// when any was missed, else VerdictInconclusive when any could not be
	// decided.
	Verdict Status `json:"verdict"`
}

// Status is a threshold's outcome, or a run's verdict.
type Status string

// Threshold outcomes.
const (
	StatusMet          Status = "MET"
	StatusMissed       Status = "MISSED"
	StatusInconclusive Status = "INCONCLUSIVE"
)

// Verdicts of a run (the worst of its thresholds).
const (
	VerdictMet          = StatusMet
	VerdictMissed       = StatusMissed
	VerdictInconclusive = StatusInconclusive
)

// ScenarioResult is one scenario's measurements.
type ScenarioResult struct {
	Name        string                `json:"name"`
	Description string                `json:"description,omitempty"`
	Workload    scenariofile.Workload `json:"workload"`
	Against     string                `json:"against,omitempty"`
	// File is the scenario file it was declared in.
	File string `json:"file"`
	// Size is the size it ran at (Quick merged when --quick).
	Size    scenariofile.Size `json:"size"`
	Metrics []MetricResult    `json:"metrics"`
	// Thresholds are the scenario's thresholds and their outcomes.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// Runs are the workload's raw runs (drain: []Run; counters:
	// []CounterRun of package scenarios), Plans the explain workload's stored plans.
	Runs  any         `json:"runs,omitempty"`
	Plans []PlanEntry `json:"plans,omitempty"`
	// Soak is the soak workload's run: its settings and the series sampled
	// over time.
	Soak *SoakRun `json:"soak,omitempty"`
	// Scale is the scale workload's run: its generated configuration and
	// each step's times.
	Scale *ScaleRun `json:"scale,omitempty"`
}

// Metric returns the scenario's metric named name, or nil.
func (s *ScenarioResult) Metric(name string) *MetricResult {
	for i := range s.Metrics {
		if s.Metrics[i].Name == name {
			return &s.Metrics[i]
		}
	}
	return nil
}

// MetricResult is one metric of a scenario.
type MetricResult struct {
	Name           string            `json:"name"`
	Unit           scenariofile.Unit `json:"unit"`
	HigherIsBetter bool              `json:"higher_is_better"`
	// Samples are the per-round values, in round order (per-round metrics
	// and the per-round percentiles of latency metrics).
	Samples []float64 `json:"samples"`
	// Value is the metric's value: the median of the rounds (per-round
	// metrics) or the percentile of all rounds' samples pooled.
	Value float64 `json:"value"`
	// N is the number of observations behind Value: rounds, or pooled
	// latency samples (a p99 needs at least 100).
	N int `json:"n"`
	// Low and High bound Value's confidence interval at Level (per-round
	// metrics with at least 2 rounds; zero otherwise).
	Low   float64 `json:"ci_low,omitempty"`
	High  float64 `json:"ci_high,omitempty"`
	Level float64 `json:"ci_level,omitempty"`
	// Histogram is the distribution of a latency metric's pooled samples.
	Histogram *Histogram `json:"histogram,omitempty"`
}

// Histogram counts samples in buckets: Counts[i] samples were at most
// Bounds[i] (and above Bounds[i-1]); the last bound is the maximum.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []int     `json:"counts"`
}

// ThresholdResult is a threshold and its outcome.
type ThresholdResult struct {
	Metric string   `json:"metric"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
	// Value is the measured value, Low and High its interval when the
	// decision used one.
	Value float64 `json:"value"`
	Low   float64 `json:"ci_low,omitempty"`
	High  float64 `json:"ci_high,omitempty"`
	N     int     `json:"n"`
	// Status is the outcome; Reason says why when it is not plain (an
	// interval straddling the bound, too few samples for a p99).
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Where the threshold is declared: file:line:col.
	Where string `json:"where"`
}

// PlanEntry is one statement's plan taken by the explain workload.
type PlanEntry struct {
	// Function is the runtime function the statement ran inside (claim,
	// complete), Statement the statement's text.
	Function  string `json:"function"`
	Statement string `json:"statement"`
	// File is where the plan (EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)) is
	// stored, relative to the result directory.
	File string `json:"file"`
	// Indexes are the indexes the plan scans; SeqScans its sequential
	// scans of tasks; RowsExamined the most rows one node read from tasks;
	// Buffers the shared buffers it touched.
	Indexes      []string `json:"indexes"`
	SeqScans     int      `json:"seq_scans"`
	RowsExamined float64  `json:"rows_examined"`
	Buffers      int64    `json:"buffers"`
	// ExecutionMS is the statement's execution time.
	ExecutionMS float64 `json:"execution_ms"`
	// Calls names the runtime function the statement only calls (claim
	// calls claim_open): that function's statements are entries of their
	// own, so this one's buffers and time are not counted in the
	// scenario's metrics again.
	Calls string `json:"calls,omitempty"`
}

// Scenario returns the result of the scenario named name, or nil.
func (r *SuiteResult) Scenario(name string) *ScenarioResult {
	i := slices.IndexFunc(r.Scenarios, func(s ScenarioResult) bool { return s.Name == name })
	if i < 0 {
		return nil
	}
	return &r.Scenarios[i]
}

// Summary describes the plan in one line for a human: the indexes it
// scans, its sequential scans of tasks, the most rows one node read from
// tasks, its buffers and time. For example "tasks_claimable, tasks_pkey;
// 100 rows of tasks; 412 buffers; 0.84 ms".
func (p PlanEntry) Summary() string {
	var b strings.Builder
	if len(p.Indexes) == 0 {
		b.WriteString("no index")
	} else {
		b.WriteString(strings.Join(p.Indexes, ", "))
	}
	if p.SeqScans > 0 {
		fmt.Fprintf(&b, "; %s of tasks", textfmt.Plural(p.SeqScans, "seq scan"))
	}
	fmt.Fprintf(&b, "; %s of tasks; %s; %.2f ms",
		textfmt.Plural(int(p.RowsExamined), "row"), textfmt.Plural(int(p.Buffers), "buffer"), p.ExecutionMS)
	return b.String()
}
