package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/scenarios"
)

// TestDrainSQLDriver drains through the SQL API: claimers calling claim and
// complete_and_take. The enabled configuration is limited to 2 per type
// here, so that 400 tasks over 100 types leave tasks waiting in lanes,
// which only complete_and_take's hand-over (or the repair) can admit: the
// drain completes only if the claimers run the tasks it hands them.
func TestDrainSQLDriver(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	const tasks, limit = 400, 2
	baseline, err := scenarios.Baseline.Case(20)
	require.NoError(t, err)
	enabled, err := scenarios.Enabled.Case(scenarios.SQLDriverBatchSize)
	require.NoError(t, err)
	for i := range enabled.Config.TaskTypes {
		enabled.Config.TaskTypes[i].Concurrency = limit
	}
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: db.Pool, Driver: scenarios.DriverSQL, Tasks: tasks, Rounds: 1, Workers: 3, BatchSize: 20,
		Cases:        []scenarios.DrainCase{baseline, enabled},
		SchemaPrefix: db.Schema, Warmup: 50,
	})
	require.NoError(t, err)
	require.Equal(t, scenarios.DriverSQL, rep.Settings.Driver)
	require.Equal(t, 3, rep.Settings.Workers)
	require.Zero(t, rep.Settings.PoolSize, "no handler pool under the sql driver")
	require.Len(t, rep.Runs, 2)
	for i, r := range rep.Runs {
		require.Equal(t, []scenarios.Variant{scenarios.Baseline, scenarios.Enabled}[i], r.Variant)
		require.Equal(t, tasks, r.Tasks)
		require.Positive(t, r.TasksPerSec)
		require.Positive(t, r.Claim.Count)
		require.Positive(t, r.Complete.Count)
		require.InDelta(t, tasks, r.MeanCompleteSize*float64(r.Complete.Count), 0.5, "every task completed once")
		require.Zero(t, r.Failed)
	}
	run := rep.Runs[1]
	require.Equal(t, limit, run.Limit)
	require.Equal(t, tasks, run.LimitedTasks)
	require.LessOrEqual(t, run.RunningMax, limit, "no type ran more than its limit")
	require.Len(t, rep.Variants, 2)
	require.NotNil(t, rep.Variants[1].VsBaseline)
	require.Equal(t, 1, rep.Variants[1].VsBaseline.N)

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var back struct {
		Settings struct{ Driver string } `json:"settings"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Equal(t, "sql", back.Settings.Driver)
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	require.Contains(t, md.String(), "by 3 claimers through the SQL API (driver `sql`")
	require.Contains(t, md.String(), "Reproduce: `pgseq bench drain --driver sql --tasks 400 --rounds 1 --variants baseline,enabled --workers 3 --batch-size 20`")

	// The claimers' connections went back to the pool, the schemas are gone.
	db.RequireSchemasGone()
}

// TestDrainSQLDriverBinding drains the binding variant through the SQL API:
// with handlers slower than a completion, the claimers start reserved
// successors when a batch has run and report them with its completion
// (complete_and_reserve). Every task completes once, running never above
// the limit, and the report says how the claimers drained.
func TestDrainSQLDriverBinding(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	const tasks = 200
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: db.Pool, Driver: scenarios.DriverSQL, Tasks: tasks, Rounds: 1, Workers: 3, BatchSize: 20,
		Variants: []scenarios.Variant{scenarios.Binding}, SchemaPrefix: db.Schema, Warmup: -1,
	})
	require.NoError(t, err)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	require.Equal(t, tasks, run.Tasks)
	require.InDelta(t, tasks, run.MeanCompleteSize*float64(run.Complete.Count), 0.5, "every task completed once")
	require.Positive(t, run.RunningSamples)
	require.LessOrEqual(t, run.RunningMax, run.Limit, "never above the limit")
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	require.Contains(t, md.String(), "complete_and_reserve")
	db.RequireSchemasGone()
}
