package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// TestCounterScenarios runs five short counters scenarios end to end: every
// strategy numbers its rows (checked gapless after every run, also in a
// table two scenarios share, one of them with its clients sharing fewer
// connections), the metrics and ratios are there, and the optimistic
// strategy's races on one hot scope show as retries.
func TestCounterScenarios(t *testing.T) {
	t.Parallel()
	db := pgseqtest.New(t)
	size := scenariofile.Size{Clients: 2, Rounds: 2, Duration: 200 * time.Millisecond}
	counters := func(name, strategy, against string, clients int) scenariofile.Scenario {
		s := size
		s.Clients = clients
		return scenariofile.Scenario{
			Name: name, Description: strategy + ", one hot scope", Workload: scenariofile.WorkloadCounters, Against: against,
			Size: s, Counter: scenariofile.CounterSpec{Strategy: strategy, Scopes: 1, RowsPerScope: 50},
			DeclRange: hcl.Range{Filename: "counters.hcl"},
		}
	}
	scs := []scenariofile.Scenario{
		counters("plain", scenariofile.StrategyPlain, "", 2),
		counters("counter_table", scenariofile.StrategyCounterTable, "plain", 2),
		counters("advisory_lock", scenariofile.StrategyAdvisoryLock, "counter_table", 2),
		counters("optimistic", scenariofile.StrategyOptimistic, "plain", 4),
		// 4 clients on 2 connections, in counter_table's table.
		counters("pooled", scenariofile.StrategyCounterTable, "plain", 4),
	}
	scs[1].Counter.Table, scs[4].Counter.Table = "shared", "shared"
	scs[4].Size.Connections = 2
	var steps, runs int
	res, err := scenarios.RunCounterScenarios(context.Background(), db.Pool, scs, nil, db.Schema, func(p scenarios.CounterProgress) {
		steps++
		if p.Run != nil {
			runs++
		}
	})
	require.NoError(t, err)
	require.Equal(t, 10, runs, "2 rounds of 5 scenarios; the warm-up is not reported")
	require.Equal(t, 12, steps, "setup, warm-up and the runs")
	require.Len(t, res, 5)
	for i, r := range res {
		require.Equal(t, scs[i].Name, r.Name)
		require.Equal(t, scenariofile.WorkloadCounters, r.Workload)
		require.Equal(t, "counters.hcl", r.File)
		require.Equal(t, scs[i].Size, r.Size)
		rs, ok := r.Runs.([]scenarios.CounterRun)
		require.True(t, ok)
		require.Len(t, rs, 2)
		for j, run := range rs {
			require.Equal(t, j+1, run.Round)
			require.Positive(t, run.Inserts)
			if r.Name != "optimistic" {
				require.Zero(t, run.Retries)
			}
		}
		tp := r.Metric("throughput")
		require.NotNil(t, tp)
		require.Len(t, tp.Samples, 2)
		require.Positive(t, tp.Value)
		require.Equal(t, 2, tp.N)
		require.Positive(t, tp.Level)
		for _, name := range []string{"insert_p50", "insert_p99"} {
			m := r.Metric(name)
			require.NotNil(t, m, name)
			require.Len(t, m.Samples, 2)
			require.Positive(t, m.Value)
			require.Equal(t, rs[0].Inserts+rs[1].Inserts, m.N)
			require.NotNil(t, m.Histogram)
		}
		if r.Against == "" {
			require.Nil(t, r.Metric("throughput_ratio"))
			continue
		}
		ratio := r.Metric("throughput_ratio")
		require.NotNil(t, ratio)
		require.Len(t, ratio.Samples, 2)
		require.Positive(t, ratio.Value)
		require.Equal(t, scenariofile.UnitRatio, ratio.Unit)
	}
	retries := 0
	for _, run := range res[3].Runs.([]scenarios.CounterRun) {
		retries += run.Retries
	}
	t.Logf("optimistic: %d retries for %d inserts", retries, res[3].Metric("insert_p50").N)
	require.Positive(t, retries, "4 clients racing for one scope's MAX + 1")

	// The scenarios' schemas are gone.
	db.RequireSchemasGone()
}
