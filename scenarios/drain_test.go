package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/scenarios"
)

type events struct{ phases map[scenarios.Phase]int }

func (e *events) Update(ev scenarios.Event) { e.phases[ev.Phase]++ }

func TestDrainSmall(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	prefix := pgtest.Schema(t)
	ev := &events{phases: map[scenarios.Phase]int{}}
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: pool, Tasks: 500, Rounds: 2, Workers: 2, PoolSize: 2, BatchSize: 50,
		Variants:     []scenarios.Variant{scenarios.Baseline, scenarios.Enabled, scenarios.Mixed},
		SchemaPrefix: prefix, Warmup: 50, Progress: ev,
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
	var n int
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_namespace WHERE starts_with(nspname, $1)`, prefix).Scan(&n))
	require.Zero(t, n)
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
	pool := pgtest.Pool(t)
	rep, err := scenarios.RunDrain(context.Background(), scenarios.DrainOptions{
		Pool: pool, Tasks: 200, Rounds: 1, Workers: 4, PoolSize: 4, BatchSize: 20,
		Variants: []scenarios.Variant{scenarios.Binding}, SchemaPrefix: pgtest.Schema(t), Warmup: -1,
	})
	require.NoError(t, err)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	require.Equal(t, scenarios.BindingLimit, run.Limit)
	require.Positive(t, run.RunningSamples)
	require.Positive(t, run.RunningMax)
	require.LessOrEqual(t, run.RunningMax, scenarios.BindingLimit)
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
	}
	require.Contains(t, names, "binding: running never above the limit")
	require.Contains(t, names, "binding: throughput")
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	// Function statistics need a superuser (track_functions): the built-in
	// test database's role is one; another server's may not be.
	var super bool
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super))
	if super {
		require.Contains(t, md.String(), "`hand_off`", "server time of the slot step")
	}
}
