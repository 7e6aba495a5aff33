package scenarios_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/scenarios/charts"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// TestRunScale runs a tiny scale scenario through RunSuite, as pgseq bench
// run does: 30 task types limited to 10, two no-op plans, the 1% change of
// one type to 5. The four metrics are there and positive, each step's plan
// is what it must be, the thresholds are judged, the report has the
// scale section, the result survives its JSON, and the schema is gone.
func TestRunScale(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	scs, diags := scenariofile.Parse(map[string][]byte{"tiny.hcl": []byte(`
scenario "tiny-scale" {
  workload = "scale"
  size {
    task_types = 30
    limit      = 10
    rounds     = 2
  }
  threshold "first_apply" {
    max = "60s"
  }
  threshold "peak_heap" {
    max = 1000000000
  }
}
`)})
	require.Empty(t, diags)

	var steps []string
	res, err := scenarios.RunSuite(context.Background(), scenarios.SuiteOptions{
		Pool: db.Pool, Scenarios: scs, SchemaPrefix: db.Schema, Step: func(s string) { steps = append(steps, s) },
	})
	require.NoError(t, err)
	require.Equal(t, []string{
		"scale: tiny-scale (30 task types, limit 10, 2 no-op plans)",
		"scale: tiny-scale: first apply of 30 task types",
		"scale: tiny-scale: no-op plan 1 of 2",
		"scale: tiny-scale: no-op plan 2 of 2",
		"scale: tiny-scale: 1% change: 1 task type to limit 5",
	}, steps)

	require.Len(t, res.Scenarios, 1)
	sr := res.Scenarios[0]
	require.Equal(t, scenariofile.WorkloadScale, sr.Workload)
	require.Equal(t, scenariofile.Size{TaskTypes: 30, Limit: 10, Rounds: 2}, sr.Size)
	for _, name := range []string{"first_apply", "noop_plan", "change_1pct", "peak_heap"} {
		m := sr.Metric(name)
		require.NotNil(t, m, name)
		require.Positive(t, m.Value, name)
		require.Positive(t, m.N, name)
		def, ok := scenariofile.LookupMetric(scenariofile.WorkloadScale, name)
		require.True(t, ok, "%s is documented", name)
		require.Equal(t, def.Unit, m.Unit, name)
	}
	require.Len(t, sr.Metric("noop_plan").Samples, 2, "one per round")
	require.Equal(t, scenariofile.UnitBytes, sr.Metric("peak_heap").Unit)

	run := sr.Scale
	require.NotNil(t, run)
	require.Equal(t, "default", run.Queue)
	require.Equal(t, 300, run.SlotRows, "a limit of 10 is 10 slot groups")
	require.Equal(t, 2, run.Files, "the queue's and one of task blocks")
	require.Positive(t, run.Bytes)
	require.Equal(t, plan.Summary{Add: 31}, run.FirstApply.Summary)
	require.Len(t, run.NoopPlans, 2)
	for _, st := range run.NoopPlans {
		require.Equal(t, plan.Summary{}, st.Summary)
		require.Positive(t, st.LoadSeconds)
		require.Less(t, st.LoadSeconds, st.Seconds)
	}
	require.Equal(t, []int{1, 5}, []int{run.ChangedTypes, run.ChangedLimit})
	require.Equal(t, plan.Summary{Change: 1}, run.Change.Summary)
	require.Positive(t, run.HeapSamples)
	for _, st := range append([]report.ScaleStep{run.FirstApply, run.Change}, run.NoopPlans...) {
		require.Positive(t, st.HeapPeakBytes)
		require.LessOrEqual(t, st.HeapPeakBytes, run.HeapPeakBytes)
	}
	require.Greater(t, run.HeapPeakBytes, run.HeapBeforeBytes)
	require.Equal(t, float64(run.HeapPeakBytes-run.HeapBeforeBytes), sr.Metric("peak_heap").Value)

	require.Len(t, sr.Thresholds, 2)
	for _, th := range sr.Thresholds {
		require.Equal(t, report.StatusMet, th.Status, th.Metric)
	}
	require.Equal(t, report.VerdictMet, res.Verdict)

	db.RequireSchemasGone() // the run's schema is dropped

	var md bytes.Buffer
	require.NoError(t, res.WriteMarkdown(&md, nil))
	for _, want := range []string{
		"30 task types, limit 10, 2 no-op plans",
		"**Reconciler at scale.** 30 task types on queue `default`, each limited to 10 (300 slot rows in all), written as 2 HCL files",
		"| step | time | loading the files | plan | peak heap |",
		"| first apply | ", "| 31 to add |",
		"| no-op plan 2 | ", "| no changes |",
		"| 1% change (1 type to limit 5) | ", "| 1 to change |",
		"Peak Go heap in use over the three steps",
	} {
		require.Contains(t, md.String(), want)
	}

	var js bytes.Buffer
	require.NoError(t, res.WriteJSON(&js))
	back, err := report.ReadSuiteResult(&js)
	require.NoError(t, err)
	require.Equal(t, run, back.Scenarios[0].Scale)
	require.Equal(t, sr.Size, back.Scenarios[0].Size)
	drawn, err := charts.Write(t.TempDir(), back)
	require.NoError(t, err)
	require.Empty(t, drawn, "no chart shows a scale run")
}

// TestRunScaleOptions: what RunScale refuses before touching the database.
func TestRunScaleOptions(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	size := scenariofile.Size{TaskTypes: 10, Limit: 2, Rounds: 1}
	cases := []struct {
		name string
		opts scenarios.ScaleOptions
		want string
	}{
		{"no pool", scenarios.ScaleOptions{Size: size}, "Pool is required"},
		{"another workload", scenarios.ScaleOptions{Pool: pool, Size: size,
			Scenario: scenariofile.Scenario{Name: "x", Workload: scenariofile.WorkloadSoak}}, "is a soak workload, not scale"},
		{"no size", scenarios.ScaleOptions{Pool: pool, Scenario: scenariofile.Scenario{Name: "x"}}, "task_types must be 1 to 1000000"},
		{"no rounds", scenarios.ScaleOptions{Pool: pool, Size: scenariofile.Size{TaskTypes: 10, Limit: 2},
			Scenario: scenariofile.Scenario{Name: "x"}}, "rounds at least 1"},
		{"long prefix", scenarios.ScaleOptions{Pool: pool, Size: size, SchemaPrefix: strings.Repeat("p", 60)}, "too long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := scenarios.RunScale(context.Background(), c.opts)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestScaleChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		types, limit      int
		changed, newLimit int
	}{
		{100_000, 1000, 1000, 500},
		{10_000, 1000, 100, 500},
		{30, 10, 1, 5},
		{150, 3, 1, 1},
		{1, 1, 1, 2}, // half of 1 would change nothing
	}
	for _, c := range cases {
		changed, newLimit := scenarios.ScaleChange(c.types, c.limit)
		require.Equal(t, []int{c.changed, c.newLimit}, []int{changed, newLimit}, "%d types, limit %d", c.types, c.limit)
	}
}
