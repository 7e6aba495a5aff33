package scenarios_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/scenarios/charts"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// soakConfig is a queue whose leader runs maintenance every 333 ms and
// purges completed tasks at once, with an unlimited and a limited type.
func soakConfig() catalog.State {
	q := catalog.DefaultQueue("soak")
	q.BatchSize = 20
	q.LeaderLease = catalog.MinLease
	q.Retention.Completed = 0
	return catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{
		{Name: "free", Queue: "soak"},
		{Name: "capped", Queue: "soak", Concurrency: 5},
	}}
}

// TestRunSoak runs the soak workload for three seconds, with and without a
// held snapshot: it samples every interval, the leader's maintenance
// purges, the metrics thresholds name are there, and the held snapshot
// shows as an old xmin and is gone afterwards, with the schema.
func TestRunSoak(t *testing.T) {
	t.Parallel()
	for _, hold := range []bool{false, true} {
		name := "retention"
		if hold {
			name = "held-snapshot"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := pgseqtest.New(t)
			sc := scenariofile.Scenario{
				Name: name, Workload: scenariofile.WorkloadSoak, Config: soakConfig(),
				Soak: scenariofile.SoakSpec{HoldSnapshot: hold, Storage: []scenariofile.StorageSetting{
					{Table: "tasks", Params: []scenariofile.StorageParam{{Name: "fillfactor", Value: "90"}}},
				}},
			}
			var progress []scenarios.SoakProgress
			res, err := scenarios.RunSoak(context.Background(), scenarios.SoakOptions{
				Pool: db.Pool, Scenario: sc, SchemaPrefix: db.Schema,
				Size:     scenariofile.Size{Duration: 3 * time.Second, Rate: 300, Workers: 1, PoolSize: 2},
				Interval: 500 * time.Millisecond, Warmup: 200 * time.Millisecond,
				Progress: func(p scenarios.SoakProgress) { progress = append(progress, p) },
			})
			require.NoError(t, err)

			run := res.Soak
			require.NotNil(t, run)
			require.Len(t, run.Samples, 6, "3 s sampled every 500 ms")
			require.Len(t, progress, 7, "the warm-up and every sample")
			require.True(t, progress[0].Warmup)
			require.Equal(t, 3*time.Second, progress[6].Elapsed)
			require.Equal(t, 20, res.Size.BatchSize, "the queue's")
			require.Equal(t, []string{"ALTER TABLE tasks SET (fillfactor = 90)"}, run.Storage)
			require.Equal(t, hold, run.HoldSnapshot)
			require.Equal(t, 2, run.TaskTypes)
			require.Equal(t, 1, run.Limited)
			require.Zero(t, run.Failed)
			require.InDelta(t, 900, run.Enqueued, 200, "300 tasks/s for 3 s")
			require.Positive(t, run.Completed)
			require.Positive(t, run.Purged, "the leader's maintenance purged completed tasks")
			for i, smp := range run.Samples {
				require.InDelta(t, 0.5*float64(i+1), smp.Seconds, 1e-9)
			}
			last := run.Samples[len(run.Samples)-1]
			require.Positive(t, last.Tasks.Bytes)
			require.Positive(t, last.Slots.Bytes)
			require.Positive(t, last.Slots.Updates, "units taken and given back")
			if hold {
				require.Positive(t, last.XminAge, "the held snapshot is behind")
				require.GreaterOrEqual(t, last.OldestXactSeconds, 3.0)
			}

			for _, name := range []string{"throughput", "claim_p50_first", "claim_p50_last", "claim_p50_growth",
				"claim_p99_first", "claim_p99_last", "claim_p99_growth", "dead_tuples_max", "table_size_last", "tasks_purged"} {
				m := res.Metric(name)
				require.NotNil(t, m, name)
				require.Positive(t, m.N, name)
				require.Len(t, m.Samples, 1, "%s: one run", name)
				_, ok := scenariofile.LookupMetric(scenariofile.WorkloadSoak, name)
				require.True(t, ok, "%s is documented", name)
			}
			require.Equal(t, float64(run.Purged), res.Metric("tasks_purged").Value)
			require.InDelta(t, res.Metric("claim_p99_last").Value/res.Metric("claim_p99_first").Value,
				res.Metric("claim_p99_growth").Value, 1e-9)

			// Nothing is left behind: the schema, the held snapshot's session
			// (only this subtest holds one).
			db.RequireSchemasGone()
			if hold {
				var holders int
				db.Scalar(&holders, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgseq bench soak: held snapshot'
				   AND backend_xmin IS NOT NULL AND pid <> pg_backend_pid()`)
				require.Zero(t, holders)
			}

			suite := &report.SuiteResult{FormatVersion: report.ResultFormatVersion, Scenarios: []report.ScenarioResult{*res}}
			var md bytes.Buffer
			require.NoError(t, suite.WriteMarkdown(&md, nil))
			require.Contains(t, md.String(), "**Over time.**")
			require.Contains(t, md.String(), "3s at 300 tasks/s, 1 worker × 2 handlers, batch 20")
			require.Equal(t, hold, strings.Contains(md.String(), "held a REPEATABLE READ snapshot"))
			drawn, err := charts.Write(t.TempDir(), suite)
			require.NoError(t, err)
			require.Equal(t, []string{"timeline-soak.png", "timeline-soak.svg"}, drawn)
		})
	}
}

// TestRunSoakOptions: what RunSoak refuses before touching the database.
func TestRunSoakOptions(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	size := scenariofile.Size{Duration: time.Second, Rate: 10, Workers: 1, PoolSize: 1}
	cases := []struct {
		name string
		opts scenarios.SoakOptions
		want string
	}{
		{"no pool", scenarios.SoakOptions{Size: size}, "Pool is required"},
		{"no configuration", scenarios.SoakOptions{Pool: pool, Size: size, Scenario: scenariofile.Scenario{Name: "x"}}, "needs a queue and a task type"},
		{"no rate", scenarios.SoakOptions{Pool: pool, Size: scenariofile.Size{Duration: time.Second, Workers: 1, PoolSize: 1},
			Scenario: scenariofile.Scenario{Name: "x", Config: soakConfig()}}, "must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := scenarios.RunSoak(context.Background(), c.opts)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestSoakWindows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		duration, interval, window time.Duration
	}{
		{3 * time.Second, time.Second, 300 * time.Millisecond},
		{time.Minute, 2 * time.Second, 6 * time.Second},
		{19 * time.Minute, 38 * time.Second, 114 * time.Second},
		{20 * time.Minute, 40 * time.Second, 10 * time.Minute},
		{30 * time.Minute, time.Minute, 10 * time.Minute},
	}
	for _, c := range cases {
		require.Equal(t, c.interval, scenarios.SoakInterval(c.duration), c.duration)
		require.Equal(t, c.window, scenarios.SoakWindow(c.duration), c.duration)
	}
}
