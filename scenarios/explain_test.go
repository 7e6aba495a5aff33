package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// explainTestQueue is the queue of the explain tests' scenarios (batch_size 100).
const explainTestQueue = "q"

// explainTestScenario builds an explain scenario the way a scenario file would
// declare it, without the HCL parser.
func explainTestScenario(name string, types []catalog.TaskType, saturated string) scenariofile.Scenario {
	return scenariofile.Scenario{
		Name: name, Description: name, Workload: scenariofile.WorkloadExplain,
		Config:    catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue(explainTestQueue)}, TaskTypes: types},
		Explain:   scenariofile.ExplainSpec{Saturated: saturated},
		DeclRange: hcl.Range{Filename: "bench/" + name + ".hcl"},
	}
}

// explainTestTypes returns n task types of the explain queue, the first limited
// of them limited to limit.
func explainTestTypes(n, limited, limit int) []catalog.TaskType {
	out := make([]catalog.TaskType, n)
	for i := range out {
		out[i] = catalog.TaskType{Name: fmt.Sprintf("t.%03d", i), Queue: explainTestQueue}
		if i < limited {
			out[i].Concurrency = limit
		}
	}
	return out
}

// TestRunExplain takes the plans of claim and complete over 40,000 pending
// tasks in the three seed states and with a saturated type whose 20,000
// tasks are the oldest: the claim is one scan of tasks_claimable, reads
// about a batch of tasks, never a lane, and the run leaves nothing behind.
//
// 40,000, not fewer: over 20,000 pending tasks the planner joins the
// claim's 100 picked ids to tasks with a hash join over a sequential scan
// of the whole (small) table, which is cheaper there than 100 primary-key
// probes; from about 40,000 on it probes by key, as it does at 1,000,000.
func TestRunExplain(t *testing.T) {
	t.Parallel()
	const batch = 100 // catalog.DefaultQueue's batch_size
	cases := []struct {
		name     string
		scenario scenariofile.Scenario
		tasks    int
		open     int
		holders  int
	}{
		{"unlimited", explainTestScenario("unlimited", explainTestTypes(1, 0, 0), ""), 40_000, 40_000, 0},
		{"one_limited", explainTestScenario("one_limited", explainTestTypes(100, 1, 10), ""), 40_000, 99*400 + 10, 0},
		{"all_limited", explainTestScenario("all_limited", explainTestTypes(100, 100, 10), ""), 40_000, 100 * 10, 0},
		{"saturated", explainTestScenario("saturated", []catalog.TaskType{
			{Name: "blocked", Queue: explainTestQueue, Concurrency: 5},
			{Name: "free", Queue: explainTestQueue},
		}, "blocked"), 40_000, 20_000, 5},
		// One key of a partitioned type at its limit of 2, its share of
		// the tasks waiting for it.
		{"saturated_key", explainTestScenario("saturated_key", []catalog.TaskType{
			{Name: "render", Queue: explainTestQueue, Partition: &catalog.Partition{Concurrency: 2}},
			{Name: "free", Queue: explainTestQueue},
		}, "render"), 40_000, 20_000, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := pgseqtest.New(t)
			out := t.TempDir()
			res, err := RunExplain(context.Background(), ExplainOptions{
				Pool: db.Pool, Scenario: c.scenario, Size: scenariofile.Size{Tasks: c.tasks}, SchemaPrefix: db.Schema, OutDir: out,
			})
			require.NoError(t, err)

			require.Equal(t, c.name, res.Name)
			require.Equal(t, scenariofile.WorkloadExplain, res.Workload)
			require.Equal(t, "bench/"+c.name+".hcl", res.File)
			require.Equal(t, c.tasks, res.Size.Tasks)
			runs, ok := res.Runs.([]ExplainRun)
			require.True(t, ok, "Runs holds []ExplainRun")
			require.Len(t, runs, 1)
			run := runs[0]
			require.Equal(t, ExplainRun{Queue: explainTestQueue, Tasks: c.tasks, Open: c.open, Holders: c.holders,
				Batch: batch, Claimed: batch, Completed: batch, SeedSeconds: run.SeedSeconds}, run,
				"a full batch claimed and completed inside the transaction (RunExplain checked the rollback undid both)")

			// The claim: tasks_claimable, by index only, a batch's worth of rows.
			var claimIndexes []string
			for i, p := range res.Plans {
				require.Equal(t, fmt.Sprintf("%s/%02d-%s.json", c.name, i+1, p.Function), p.File)
				require.Contains(t, []string{FunctionClaim, FunctionComplete}, p.Function)
				require.NotEmpty(t, p.Statement)
				require.NotContains(t, p.Statement, db.Schema, "statements name the schema {{schema}}")
				require.GreaterOrEqual(t, p.ExecutionMS, 0.0)
				require.LessOrEqual(t, p.RowsExamined, float64(2*batch), "%s: %s\n%s", p.Function, p.Summary(), p.Statement)
				require.Zero(t, p.SeqScans, "%s: %s\n%s", p.Function, p.Summary(), p.Statement)
				scans := explainTestScans(t, filepath.Join(out, p.File))
				if p.Function == FunctionClaim {
					claimIndexes = append(claimIndexes, p.Indexes...)
					for _, s := range scans {
						if strings.HasPrefix(s, "Bitmap") && p.RowsExamined == 0 {
							// The probe for due scheduled tasks, planned for the
							// none there are (the saturated key's tasks wait out
							// of tasks_scheduled): an empty bitmap, no row read.
							continue
						}
						require.Contains(t, []string{"Index Scan", "Index Only Scan"}, s, "claim: %s\n%s", p.Summary(), p.Statement)
					}
				}
			}
			require.Equal(t, FunctionClaim, res.Plans[0].Function, "the claim's plans come first")
			require.Equal(t, FunctionComplete, res.Plans[len(res.Plans)-1].Function)
			require.Contains(t, claimIndexes, "tasks_claimable")
			require.NotContains(t, claimIndexes, "tasks_waiting", "the claim never reads a lane")

			// The metrics, one sample each.
			require.Equal(t, scenariofile.MetricNames(scenariofile.WorkloadExplain), explainTestMetricNames(res))
			for _, m := range res.Metrics {
				require.Equal(t, 1, m.N)
				require.Equal(t, []float64{m.Value}, m.Samples)
				want, _ := scenariofile.LookupMetric(scenariofile.WorkloadExplain, m.Name)
				require.Equal(t, want.Unit, m.Unit)
			}
			require.LessOrEqual(t, res.Metric("rows_examined").Value, float64(2*batch),
				"bounded by the batch, though %d tasks are pending", c.tasks)
			require.Zero(t, res.Metric("seq_scans").Value)
			require.Positive(t, res.Metric("buffers").Value)
			require.Positive(t, res.Metric("claim_time").Value)
			require.Less(t, res.Metric("claim_time").Value, 1.0)

			// Nothing is left: the schema is gone.
			db.RequireSchemasGone()
			t.Logf("%s (%s):", c.name, textfmt.Plural(c.tasks, "pending task"))
			for _, p := range res.Plans {
				t.Logf("  %s %-8s %s", p.File, p.Function, p.Summary())
			}
		})
	}
}

// explainTestScans reads a plan file (it must be EXPLAIN's JSON shape)
// and returns the node types of its scans of tasks.
func explainTestScans(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc []struct {
		QueryText     string          `json:"Query Text"`
		Plan          json.RawMessage `json:"Plan"`
		ExecutionTime float64         `json:"Execution Time"`
	}
	require.NoError(t, json.Unmarshal(b, &doc), "%s is JSON", path)
	require.Len(t, doc, 1)
	require.NotEmpty(t, doc[0].QueryText)
	var out []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Relation Name"] == explainTasksTable && n["Node Type"] != "ModifyTable" {
			out = append(out, n["Node Type"].(string))
		}
		children, _ := n["Plans"].([]any)
		for _, c := range children {
			walk(c.(map[string]any))
		}
	}
	var top map[string]any
	require.NoError(t, json.Unmarshal(doc[0].Plan, &top))
	walk(top)
	return out
}

func explainTestMetricNames(r *report.ScenarioResult) []string {
	var out []string
	for _, m := range r.Metrics {
		out = append(out, m.Name)
	}
	return out
}

// TestLayoutExplainSeed: tasks spread evenly, a limited type's first tasks hold
// its units (each group as often as its capacity), a saturated type's
// share comes first and all waits while holders keep its units.
func TestLayoutExplainSeed(t *testing.T) {
	types := []catalog.TaskType{
		{Name: "a", Queue: "q"},
		{Name: "b", Queue: "q", Concurrency: 3, Priority: 2},
		{Name: "c", Queue: "q", Concurrency: 2},
	}
	units := map[string][]int{"b": {1, 1, 2}, "c": {1, 2}}

	l := layoutExplainSeed(types, -1, 10, units)
	require.Zero(t, l.sat.n)
	require.Equal(t, explainSeed{
		types: []string{"a", "b", "c"}, priorities: []int{0, 2, 0}, limited: []bool{false, true, true},
		unitStart: []int{1, 1, 4}, unitCount: []int{0, 3, 2}, units: []int{1, 1, 2, 1, 2}, n: 10,
	}, l.rest)
	require.Equal(t, []string{"b", "b", "b", "c", "c"}, l.unitTypes)
	require.Equal(t, []int{1, 1, 2, 1, 2}, l.unitGroups)
	require.Equal(t, 4+3+2, l.open, "a's 4 tasks and the unit holders")
	require.Empty(t, l.holders)

	l = layoutExplainSeed(types, -1, 4, units) // fewer tasks than units
	require.Equal(t, []int{0, 1, 1}, l.rest.unitCount)
	require.Equal(t, []int{1, 1}, l.rest.units)
	require.Equal(t, 4, l.open)

	l = layoutExplainSeed(types, 2, 10, units)
	require.Equal(t, explainSeed{types: []string{"c"}, priorities: []int{0}, limited: []bool{true},
		unitStart: []int{1}, unitCount: []int{0}, n: 3}, l.sat)
	require.Equal(t, []int{1, 2}, l.holders)
	require.Equal(t, 7, l.rest.n)
	require.Equal(t, 3, l.rest.first, "the others are due after the saturated type's tasks")
	require.Equal(t, []string{"a", "b"}, l.rest.types)
	require.Equal(t, []int{0, 3}, l.rest.unitCount)
	require.Equal(t, []string{"c", "c", "b", "b", "b"}, l.unitTypes)
	require.Equal(t, 4+3, l.open)

	l = layoutExplainSeed(types[2:], 0, 10, units) // only the saturated type
	require.Equal(t, 10, l.sat.n)
	require.Zero(t, l.rest.n)
	require.Zero(t, l.open)
}

// A plan as auto_explain logs it (log_format = json), trimmed.
const explainTestLogged = `duration: 1.250 ms  plan:
{
  "Query Text": "WITH picked AS (SELECT t.id FROM \"s\".tasks t ...) UPDATE \"s\".tasks t ...",
  "Plan": {
    "Node Type": "ModifyTable", "Operation": "Update", "Relation Name": "tasks",
    "Actual Rows": 0, "Actual Loops": 1, "Shared Hit Blocks": 40, "Shared Read Blocks": 2,
    "Plans": [
      {"Node Type": "Limit", "Parent Relationship": "InitPlan", "Subplan Name": "CTE picked",
       "Actual Rows": 100, "Actual Loops": 1,
       "Plans": [{"Node Type": "LockRows", "Actual Rows": 100, "Actual Loops": 1,
                  "Plans": [{"Node Type": "Index Scan", "Index Name": "tasks_claimable", "Relation Name": "tasks",
                             "Actual Rows": 100, "Actual Loops": 1, "Rows Removed by Filter": 7}]}]},
      {"Node Type": "Nested Loop", "Parent Relationship": "Outer", "Actual Rows": 100, "Actual Loops": 1,
       "Plans": [
         {"Node Type": "CTE Scan", "Actual Rows": 100, "Actual Loops": 1},
         {"Node Type": "Index Scan", "Index Name": "tasks_pkey", "Relation Name": "tasks",
          "Actual Rows": 1, "Actual Loops": 100},
         {"Node Type": "Seq Scan", "Relation Name": "workers", "Actual Rows": 1, "Actual Loops": 1},
         {"Node Type": "Bitmap Heap Scan", "Relation Name": "tasks", "Actual Rows": 2, "Actual Loops": 3,
          "Rows Removed by Index Recheck": 40,
          "Plans": [{"Node Type": "Bitmap Index Scan", "Index Name": "tasks_claimable", "Actual Rows": 2, "Actual Loops": 3}]},
         {"Node Type": "Seq Scan", "Relation Name": "tasks", "Actual Rows": 0, "Actual Loops": 0, "Rows Removed by Filter": 0}
       ]}
    ]
  }
}`

// TestExplainPlanStats reads a logged plan: every node is walked, CTEs included.
func TestExplainPlanStats(t *testing.T) {
	ms, plan, ok, err := parseAutoExplain(explainTestLogged)
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, 1.25, ms, 1e-9)
	require.Contains(t, plan.QueryText, "WITH picked")

	indexes, seq, rows, buffers, err := explainPlanStats(plan.Plan)
	require.NoError(t, err)
	require.Equal(t, []string{"tasks_claimable", "tasks_pkey"}, indexes, "each index once, in plan order")
	require.Equal(t, 1, seq, "the scan of workers is not counted")
	require.InDelta(t, 126, rows, 1e-9, "the bitmap heap scan: (2 + 40) × 3; the claimable scan read 107, the pkey probes 100")
	require.Equal(t, int64(42), buffers)

	for _, msg := range []string{"some other notice", "duration: 2 ms  statement: SELECT 1"} {
		_, _, ok, err := parseAutoExplain(msg)
		require.NoError(t, err)
		require.False(t, ok, msg)
	}
	_, _, _, err = parseAutoExplain("duration: 1.000 ms  plan:\nQuery Text: SELECT 1")
	require.ErrorContains(t, err, "log_format json")

	p := report.PlanEntry{Indexes: indexes, SeqScans: seq, RowsExamined: rows, Buffers: buffers, ExecutionMS: ms}
	require.Equal(t, "tasks_claimable, tasks_pkey; 1 seq scan of tasks; 126 rows of tasks; 42 buffers; 1.25 ms", p.Summary())
	require.Equal(t, "no index; 0 rows of tasks; 1 buffer; 0.01 ms", report.PlanEntry{Buffers: 1, ExecutionMS: 0.01}.Summary())
}

// TestCalledRuntimeFunction: a statement that only calls a runtime function
// (whose statements are plans of their own) is recognised, so that its
// buffers are not counted twice; a set-returning builtin or a real scan is
// not such a call.
func TestCalledRuntimeFunction(t *testing.T) {
	const quoted = `"pgseq_bench_1"`
	for _, tc := range []struct {
		name, query, plan, want string
	}{
		{"runtime function", `SELECT * FROM "pgseq_bench_1".claim_open(v_queue, v_worker, v_batch, v_max)`,
			`{"Node Type": "Function Scan", "Function Name": "claim_open", "Shared Hit Blocks": 1618}`, "claim_open"},
		{"builtin", `SELECT f.n, x.id FROM unnest(v_taken) AS x`,
			`{"Node Type": "Function Scan", "Function Name": "unnest"}`, ""},
		{"another schema's function", `SELECT * FROM "pgseq_bench_2".claim_open(1)`,
			`{"Node Type": "Function Scan", "Function Name": "claim_open"}`, ""},
		{"a scan", `SELECT 1 FROM "pgseq_bench_1".workers w`,
			`{"Node Type": "Seq Scan", "Relation Name": "workers"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := calledRuntimeFunction(autoExplainLog{QueryText: tc.query, Plan: json.RawMessage(tc.plan)}, quoted)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestExplainOptionsErrors: options the explain workload cannot run are
// refused before anything touches the database.
func TestExplainOptionsErrors(t *testing.T) {
	pool := &pgxpool.Pool{} // never used: the options are refused first
	ok := explainTestScenario("ok", explainTestTypes(2, 1, 5), "")
	cases := []struct {
		name   string
		modify func(*ExplainOptions)
		want   string
	}{
		{"no pool", func(o *ExplainOptions) { o.Pool = nil }, "Pool is required"},
		{"other workload", func(o *ExplainOptions) { o.Scenario.Workload = scenariofile.WorkloadDrain }, `scenario "ok" is a drain workload`},
		{"no queue", func(o *ExplainOptions) { o.Scenario.Config.Queues = nil }, "declares no queue"},
		{"no types", func(o *ExplainOptions) { o.Scenario.Config.TaskTypes = nil }, `queue "q" has no task type`},
		{"unknown saturated", func(o *ExplainOptions) { o.Scenario.Explain.Saturated = "nope" }, `"nope" is not a task type of queue "q"`},
		{"unlimited saturated", func(o *ExplainOptions) { o.Scenario.Explain.Saturated = "t.001" }, `"t.001" has no concurrency limit`},
		{"bad name", func(o *ExplainOptions) { o.Scenario.Name = "../x"; o.OutDir = "out" }, "cannot name the directory"},
		{"long prefix", func(o *ExplainOptions) { o.SchemaPrefix = string(slices.Repeat([]byte("p"), 60)) }, "too long"},
		{"negative batch", func(o *ExplainOptions) { o.Scenario.Explain.Batch = -1 }, "at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ExplainOptions{Pool: pool, Scenario: ok}
			o.Scenario.Config.TaskTypes = slices.Clone(ok.Config.TaskTypes)
			c.modify(&o)
			_, err := RunExplain(context.Background(), o)
			require.ErrorContains(t, err, c.want)
		})
	}
}
