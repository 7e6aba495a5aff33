package scenariofile

// Unit is what a metric's values measure.
type Unit string

// Metric units. Durations are always in seconds in results and thresholds
// (scenario files write them as "1ms", "250us").
const (
	UnitTasksPerSec   Unit = "tasks/s"
	UnitInsertsPerSec Unit = "inserts/s"
	UnitRatio         Unit = "×"
	UnitFraction      Unit = "fraction"
	UnitSeconds       Unit = "s"
	UnitRows          Unit = "rows"
	UnitBuffers       Unit = "buffers"
	UnitCount         Unit = "count"
	// UnitTuples counts row versions (dead tuples, rows purged): figures
	// that vary from run to run, unlike a plan's counts.
	UnitTuples Unit = "tuples"
	UnitBytes  Unit = "bytes"
	// UnitInstructions counts the instructions a server executed
	// (bench ab --instructions).
	UnitInstructions Unit = "instructions"
)

// Metric describes one metric a threshold can name.
type Metric struct {
	Name     string
	Workload Workload
	Unit     Unit
	// HigherIsBetter says which way is an improvement (compare flags the
	// other way as a regression).
	HigherIsBetter bool
	// Relative metrics compare the scenario with its Against round by
	// round; a threshold on one needs Against.
	Relative bool
	// PerRound metrics have one value per round (judged on the rounds'
	// confidence interval); the others pool every sample of every round
	// (latency percentiles, with the sample count beside them) or are
	// measured once (plan shape).
	PerRound bool
	// Doc says what the metric is, for docs/benchmarks.md and --help.
	Doc string
}

// Metrics is the documented set of metrics, per workload.
var Metrics = []Metric{
	{"throughput", WorkloadDrain, UnitTasksPerSec, true, false, true,
		"tasks drained per second, end to end (claim → handler → complete, durable commits)"},
	{"throughput_ratio", WorkloadDrain, UnitRatio, true, true, true,
		"throughput divided by the against scenario's of the same round"},
	{"ideal_share", WorkloadDrain, UnitFraction, true, false, true,
		"throughput as a share of the ideal limit / handler_delay (one limited type whose limit binds)"},
	{"claim_p50", WorkloadDrain, UnitSeconds, false, false, false, "median claim round trip as the workers saw it"},
	{"claim_p99", WorkloadDrain, UnitSeconds, false, false, false, "99th percentile claim round trip"},
	{"complete_p50", WorkloadDrain, UnitSeconds, false, false, false, "median complete round trip (it releases the slots)"},
	{"complete_p99", WorkloadDrain, UnitSeconds, false, false, false, "99th percentile complete round trip"},
	{"running_max", WorkloadDrain, UnitCount, false, false, false,
		"most tasks of one limited type seen running at once (sampled through the drain)"},
	{"slot_release", WorkloadDrain, UnitSeconds, false, false, false,
		"server time of the slot step per unit released (hand_off; needs a superuser)"},
	{"go_cpu_per_task", WorkloadDrain, UnitSeconds, false, false, true,
		"CPU time of the pgseq process (workers, pools, observer) per task drained: the Go side's work, which the server's counts do not see"},

	{"rows_examined", WorkloadExplain, UnitRows, false, false, false,
		"the most rows any one plan node of claim or complete read from tasks (rows returned plus rows removed by a filter, over all loops)"},
	{"buffers", WorkloadExplain, UnitBuffers, false, false, false,
		"shared buffers (hit + read) the statements of one claim touched"},
	{"seq_scans", WorkloadExplain, UnitCount, false, false, false,
		"sequential scans of tasks in the plans of claim and complete"},
	{"claim_time", WorkloadExplain, UnitSeconds, false, false, false,
		"execution time of the claim's statements under EXPLAIN ANALYZE"},

	{"throughput", WorkloadCounters, UnitInsertsPerSec, true, false, true,
		"numbered rows inserted per second, each insert its own durable transaction"},
	{"throughput_ratio", WorkloadCounters, UnitRatio, true, true, true,
		"throughput divided by the against scenario's of the same round"},
	{"insert_p50", WorkloadCounters, UnitSeconds, false, false, false, "median insert round trip (commit included)"},
	{"insert_p99", WorkloadCounters, UnitSeconds, false, false, false, "99th percentile insert round trip"},

	{"throughput", WorkloadSoak, UnitTasksPerSec, true, false, false,
		"tasks completed per second over the measured run (the enqueue rate when the workers keep up)"},
	{"claim_p50_first", WorkloadSoak, UnitSeconds, false, false, false,
		"median claim round trip in the first window (see claim_p99_first)"},
	{"claim_p50_last", WorkloadSoak, UnitSeconds, false, false, false,
		"median claim round trip in the last window"},
	{"claim_p50_growth", WorkloadSoak, UnitRatio, false, false, false,
		"claim_p50_last divided by claim_p50_first: the scan's own cost, less noisy than the p99, which durable commits dominate"},
	{"claim_p99_first", WorkloadSoak, UnitSeconds, false, false, false,
		"99th percentile claim round trip in the first window: the first tenth of the run, or its first 10 minutes from 20 minutes on"},
	{"claim_p99_last", WorkloadSoak, UnitSeconds, false, false, false,
		"99th percentile claim round trip in the last window (the last tenth, or the last 10 minutes)"},
	{"claim_p99_growth", WorkloadSoak, UnitRatio, false, false, false,
		"claim_p99_last divided by claim_p99_first: 1 when the claim stays flat"},
	{"dead_tuples_max", WorkloadSoak, UnitTuples, false, false, false,
		"most dead tuples of tasks and concurrency_slots together in one sample"},
	{"table_size_last", WorkloadSoak, UnitBytes, false, false, false,
		"total size of tasks and concurrency_slots, indexes and TOAST included, at the last sample"},
	{"tasks_purged", WorkloadSoak, UnitTuples, true, false, false,
		"finished tasks the leader's maintenance deleted past retention during the run (0: maintenance did not purge)"},

	{"first_apply", WorkloadScale, UnitSeconds, false, false, false,
		"loading the generated configuration's files, planning and applying it to a fresh schema, as pgseq apply --auto-approve does"},
	{"noop_plan", WorkloadScale, UnitSeconds, false, false, true,
		"loading the same files again and planning them against the applied schema, as pgseq plan does: a plan without changes"},
	{"change_1pct", WorkloadScale, UnitSeconds, false, false, false,
		"loading the files with 1% of the types at half the limit, planning and applying that change"},
	{"peak_heap", WorkloadScale, UnitBytes, false, false, false,
		"the most Go heap in use (live and not yet swept objects) sampled every 10 ms over the three steps, above the heap in use before them"},
}

// LookupMetric returns the metric named name of a workload.
func LookupMetric(w Workload, name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Workload == w && m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// MetricNames returns the names of a workload's metrics, in documentation
// order.
func MetricNames(w Workload) []string {
	var out []string
	for _, m := range Metrics {
		if m.Workload == w {
			out = append(out, m.Name)
		}
	}
	return out
}
