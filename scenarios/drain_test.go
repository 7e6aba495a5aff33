package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/scenarios"
)

type events struct{ phases map[scenarios.Phase]int }

func (e *events) Update(ev scenarios.Event) { e.phases[ev.Phase]++ }

func TestDrainSmall(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	ev := &events{phases: map[scenarios.Phase]int{}}
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: db.Pool, Tasks: 500, Rounds: 2, Workers: 2, PoolSize: 2, BatchSize: 50,
		Variants:     []scenarios.Variant{scenarios.Baseline, scenarios.Enabled, scenarios.Mixed},
		SchemaPrefix: db.Schema, Warmup: 50, Progress: ev,
	})
	require.NoError(t, err)
	require.Len(t, rep.Runs, 6, "2 rounds of 3 variants; the warm-up is not reported")
	require.Equal(t, scenarios.Baseline, rep.Runs[0].Variant)
	require.Equal(t, scenarios.Enabled, rep.Runs[1].Variant, "variants are interleaved")
	require.Equal(t, scenarios.Mixed, rep.Runs[2].Variant)
	require.Equal(t, 2, rep.Runs[3].Round)
	for _, r := range rep.Runs {
		require.Equal(t, 500, r.Tasks)
		require.Positive(t, r.TasksPerSec)
		require.Positive(t, r.Claim.Count)
		require.Positive(t, r.Complete.Count)
		require.Zero(t, r.Failed)
		if r.Variant != scenarios.Baseline {
			require.Equal(t, 10, r.Limit)
			require.LessOrEqual(t, r.RunningMax, 10, "no type ran more than its limit")
		}
	}
	require.Len(t, rep.Variants, 3)
	require.Nil(t, rep.Variants[0].VsBaseline)
	require.NotNil(t, rep.Variants[1].VsBaseline)
	require.Equal(t, 2, rep.Variants[1].VsBaseline.N)
	require.Equal(t, 7, ev.phases[scenarios.PhaseDone], "warm-up and 6 runs")
	require.NotEmpty(t, rep.Environment.PostgresSettings["fsync"])

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var back map[string]any
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	require.Contains(t, back, "variants")
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	require.Contains(t, md.String(), "| enabled | 100 task types, each limited to 10 |")

	// The runs' schemas are gone.
	db.RequireSchemasGone()
}

// BenchmarkDrain drains a few thousand no-op tasks per iteration (baseline
// configuration) and reports tasks/s. The full benchmark is pgseq bench drain.
func BenchmarkDrain(b *testing.B) {
	pool := pgtest.Pool(b)
	prefix := pgtest.Schema(b)
	const tasks = 5000
	var tps float64
	for b.Loop() {
		rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
			Pool: pool, Tasks: tasks, Rounds: 1, Variants: []scenarios.Variant{scenarios.Baseline},
			SchemaPrefix: prefix, Warmup: -1,
		})
		if err != nil {
			b.Fatal(err)
		}
		tps += rep.Runs[0].TasksPerSec
	}
	b.ReportMetric(tps/float64(b.N), "tasks/s")
}

// TestDrainBindingSmall: with handlers that sleep, the limit of 10 binds:
// the sampled running count never exceeds it, the report judges it, and the
// server time of the slot step (hand_off) is reported.
func TestDrainBindingSmall(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: db.Pool, Tasks: 200, Rounds: 1, Workers: 4, PoolSize: 4, BatchSize: 20,
		Variants: []scenarios.Variant{scenarios.Binding}, SchemaPrefix: db.Schema, Warmup: -1,
	})
	require.NoError(t, err)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	binding, err := scenarios.Binding.Case(20)
	require.NoError(t, err)
	limit := binding.Config.TaskTypes[0].Concurrency
	require.Equal(t, limit, run.Limit)
	require.Positive(t, run.RunningSamples)
	require.Positive(t, run.RunningMax)
	require.LessOrEqual(t, run.RunningMax, limit)
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
	}
	require.Contains(t, names, "binding: running never above the limit")
	require.Contains(t, names, "binding: handlers never above the limit")
	require.Positive(t, run.HandlersMax)
	require.LessOrEqual(t, run.HandlersMax, limit, "no more handlers of the type ran at once than its limit")
	require.Contains(t, names, "binding: throughput")
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	// Function statistics need a superuser (track_functions): the built-in
	// test database's role is one; another server's may not be.
	var super bool
	db.Scalar(&super, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)
	if super {
		require.Contains(t, md.String(), "`hand_off`", "server time of the slot step")
	}
}

// Every variant of bench drain is a scenario of the shipped drain.hcl, and
// its case is what bench drain has always run: the description its reports
// print, one queue "bench" with the batch size given, the task types and
// their limits, and the handlers' delay.
func TestVariantCases(t *testing.T) {
	t.Parallel()
	require.Len(t, scenarios.Variants, 6)
	for _, tc := range []struct {
		variant               scenarios.Variant
		description           string
		types, limited, limit int
		handlerDelayMS        int
	}{
		{scenarios.Baseline, "1 queue, 1 task type, no limit", 1, 0, 0, 0},
		{scenarios.Enabled, "100 task types, each limited to 10", 100, 100, 10, 0},
		{scenarios.Mixed, "100 task types, 1 of them limited to 10", 100, 1, 10, 0},
		{scenarios.Many, "1,000 task types, each limited to 1,000", 1000, 1000, 1000, 0},
		// drain.hcl describes high with the 8 workers and batches of 500 of
		// bench run; bench drain takes both from its flags.
		{scenarios.High, "1 task type limited to 500", 1, 1, 500, 0},
		{scenarios.Binding, "1 task type limited to 10, handlers sleep 20ms", 1, 1, 10, 20},
	} {
		c, err := tc.variant.Case(123)
		require.NoError(t, err)
		queue := catalog.DefaultQueue("bench")
		queue.BatchSize = 123
		types := make([]catalog.TaskType, tc.types)
		for i := range types {
			types[i] = catalog.TaskType{Name: "noop", Queue: "bench"}
			if tc.types > 1 {
				types[i].Name = fmt.Sprintf("noop.%04d", i)
			}
			if i < tc.limited {
				types[i].Concurrency = tc.limit
			}
		}
		require.Equal(t, scenarios.DrainCase{
			Name: tc.variant, Description: tc.description,
			Config:       catalog.State{Queues: []catalog.Queue{queue}, TaskTypes: types},
			HandlerDelay: time.Duration(tc.handlerDelayMS) * time.Millisecond,
		}, c)
	}
	_, err := scenarios.Variant("nope").Case(100)
	require.ErrorContains(t, err, `drain variant "nope": the shipped drain.hcl declares no scenario of that name`)
}
