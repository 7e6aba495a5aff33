package pgseqtest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// CheckInvariants against states that break each invariant on purpose
// (written straight into the tables): a consistent state gives no
// violation, each broken one its invariant, so that a test passing
// RequireInvariants means something.
func TestCheckInvariantsFindsEachBrokenInvariant(t *testing.T) {
	t.Parallel()
	d := pgseqtest.NewDB(t, catalog.State{
		Queues: []catalog.Queue{catalog.DefaultQueue("q")},
		TaskTypes: []catalog.TaskType{
			{Name: "a", Queue: "q", Concurrency: 3},
			{Name: "b", Queue: "q", Concurrency: 5},
			{Name: "d", Queue: "q", Concurrency: 2},
			{Name: "plain", Queue: "q"},
		},
	})
	check := func(atRest bool) map[string]int {
		t.Helper()
		vs, err := pgseqtest.CheckInvariants(context.Background(), d.Pool, d.Schema, atRest)
		require.NoError(t, err)
		out := map[string]int{}
		for _, v := range vs {
			out[v.Invariant]++
			require.NotEmpty(t, v.TaskType, v.String())
			require.NotEmpty(t, v.Detail, v.String())
		}
		return out
	}

	// Three a tasks running, two b tasks holding a unit (one running, one
	// open), an unlimited task running.
	d.Exec(`SELECT {{schema}}.register_worker('w', 'h', 60)`)
	d.Exec(`SELECT {{schema}}.enqueue_batch(ARRAY['a', 'a', 'a', 'b', 'plain'])`)
	d.Exec(`SELECT count(*) FROM {{schema}}.claim('q', 'w', 10)`)
	d.Exec(`SELECT {{schema}}.enqueue('b')`)
	require.Empty(t, check(true), "a consistent state")
	d.RequireInvariants()

	// I2: used drifts from the holders.
	d.Exec(`UPDATE {{schema}}.concurrency_slots SET used = used + 1 WHERE task_type = 'd' AND slot_group = 1`)
	require.Equal(t, map[string]int{pgseqtest.UsedEqualsHolders: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.concurrency_slots SET used = used - 1 WHERE task_type = 'd' AND slot_group = 1`)

	// I2: a running limited task without a unit (its group's used kept).
	var id int64
	var group int
	d.Row(`SELECT id, slot_group FROM {{schema}}.tasks WHERE type = 'a' AND status = 'running' ORDER BY id LIMIT 1`, nil, &id, &group)
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = NULL WHERE id = $1`, id)
	require.Equal(t, map[string]int{pgseqtest.LimitedTaskHoldsOne: 1, pgseqtest.UsedEqualsHolders: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = $2 WHERE id = $1`, id, group)

	// I2: a task holding a unit of a group that does not exist.
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = 40 WHERE id = $1`, id)
	require.Equal(t, map[string]int{pgseqtest.UsedEqualsHolders: 2}, check(true), "group 40 held, its own group's used off")
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = $2 WHERE id = $1`, id, group)

	// I2: a pending task holding a unit that is not open.
	var open int64
	d.Scalar(&open, `SELECT id FROM {{schema}}.tasks WHERE type = 'b' AND status = 'pending'`)
	d.Exec(`UPDATE {{schema}}.tasks SET gate = 'scheduled' WHERE id = $1`, open)
	require.Equal(t, map[string]int{pgseqtest.PendingHolderIsOpen: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.tasks SET gate = 'open' WHERE id = $1`, open)

	// I3: a finished task still holding a unit.
	d.Exec(`UPDATE {{schema}}.tasks SET status = 'completed' WHERE id = $1`, id)
	require.Equal(t, map[string]int{pgseqtest.FinishedHoldsNone: 1, pgseqtest.UsedEqualsHolders: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.tasks SET status = 'running' WHERE id = $1`, id)

	// I1: more running than the limit, type not draining (and the layout
	// no longer sums to it); a draining type may run over its limit.
	d.Exec(`UPDATE {{schema}}.task_types SET concurrency = 2 WHERE name = 'a'`)
	require.Equal(t, map[string]int{pgseqtest.RunningWithinLimit: 1, pgseqtest.CapacitiesSumLimit: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.task_types SET draining = true WHERE name = 'a'`)
	require.Equal(t, map[string]int{pgseqtest.CapacitiesSumLimit: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.task_types SET concurrency = 3, draining = false WHERE name = 'a'`)

	// I1: a group with more holders than capacity, type not draining.
	d.Exec(`UPDATE {{schema}}.concurrency_slots SET capacity = capacity - 1 WHERE task_type = 'a' AND slot_group = $1`, group)
	require.Equal(t, map[string]int{pgseqtest.HoldersWithinGroup: 1, pgseqtest.CapacitiesSumLimit: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.concurrency_slots SET capacity = capacity + 1 WHERE task_type = 'a' AND slot_group = $1`, group)

	// I6: a reserved task holding a unit; one for a worker declared dead,
	// only at rest.
	var reserved int64
	d.Scalar(&reserved, `INSERT INTO {{schema}}.tasks (queue, type, gate, status, worker_id) VALUES ('q', 'd', 'waiting', 'claimed', 'w') RETURNING id`)
	require.Empty(t, check(true), "a reservation of a live worker, holding no unit")
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = 1 WHERE id = $1`, reserved)
	require.Equal(t, map[string]int{pgseqtest.ReservedHoldsNone: 1, pgseqtest.FinishedHoldsNone: 1}, check(true))
	d.Exec(`UPDATE {{schema}}.tasks SET slot_group = NULL WHERE id = $1`, reserved)
	d.Exec(`UPDATE {{schema}}.workers SET dead_at = now() WHERE id = 'w'`)
	require.Equal(t, map[string]int{pgseqtest.ReservedHoldsNone: 1}, check(true))
	require.Empty(t, check(false), "a dead worker's reservation: only at rest")
	d.Exec(`UPDATE {{schema}}.workers SET dead_at = NULL WHERE id = 'w'`)
	d.Exec(`DELETE FROM {{schema}}.tasks WHERE id = $1`, reserved)

	// I5: a due task waiting beside a free unit of its type, only at rest.
	d.Exec(`INSERT INTO {{schema}}.tasks (queue, type, gate) VALUES ('q', 'b', 'waiting')`)
	require.Equal(t, map[string]int{pgseqtest.NoWaitBesideFree: 1}, check(true))
	require.Empty(t, check(false), "I5 holds only at rest")
}
