package applier_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
	"github.com/pgseq/pgseq/reconcile"
)

const (
	scaleTypes = 10_000
	scaleLimit = 1000
)

// scaleConfig declares scaleTypes task types with limit scaleLimit, except
// that the first `changed` types get limit `other`.
func scaleConfig(changed, other int) catalog.State {
	s := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}
	for i := 0; i < scaleTypes; i++ {
		limit := scaleLimit
		if i < changed {
			limit = other
		}
		s.TaskTypes = append(s.TaskTypes, catalog.TaskType{Name: fmt.Sprintf("type:%05d", i), Queue: "default", Concurrency: limit})
	}
	return s
}

func planFor(b *testing.B, ctx context.Context, db inspect.Querier, schema string, desired catalog.State) *plan.Plan {
	b.Helper()
	actual, _, err := inspect.ReadFor(ctx, db, schema, desired)
	require.NoError(b, err)
	return planner.Plan(desired, actual, planner.Options{Schema: schema})
}

// BenchmarkScale measures a large configuration: 10,000 task types with
// limit 1000 (500,000 slot rows). Run it with
//
//	go test -run '^$' -bench Scale -benchtime 1x ./applier
//
// Targets on a 2-core machine: initial apply (plan + apply) under 20 s,
// a no-op plan under 2 s.
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.Pool(b)
	desired := scaleConfig(0, 0)

	b.Run("initial_apply", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			schema := pgtest.Schema(b)
			b.StartTimer()
			p := planFor(b, ctx, pool, schema, desired)
			_, err := reconcile.Apply(ctx, pool, p, applier.Options{Client: "bench"})
			require.NoError(b, err)
		}
		b.ReportMetric(float64(scaleTypes*catalog.MaxSlotGroups), "slot_rows")
	})

	schema := pgtest.Schema(b)
	p := planFor(b, ctx, pool, schema, desired)
	_, err := reconcile.Apply(ctx, pool, p, applier.Options{Client: "bench"})
	require.NoError(b, err)

	b.Run("noop_plan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p := planFor(b, ctx, pool, schema, desired)
			require.True(b, p.Empty())
		}
	})

	// 1% of the types (100) switch between limit 1000 and 500 each iteration.
	b.Run("change_1pct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			other := 500
			if i%2 == 1 {
				other = scaleLimit
			}
			p := planFor(b, ctx, pool, schema, scaleConfig(scaleTypes/100, other))
			require.Equal(b, scaleTypes/100, p.Summary.Change)
			_, err := reconcile.Apply(ctx, pool, p, applier.Options{Client: "bench"})
			require.NoError(b, err)
		}
	})
}
