package migrations_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// A limit added to a type with pending tasks applies to them at once; a limit
// removed frees them; a type moved to another queue takes its pending tasks
// along; a deleted type's tasks stay claimable.
func TestApplyRetargetsPendingTasks(t *testing.T) {
	t.Parallel()
	q, other := queueCfg("q"), queueCfg("other")
	both := func(types ...catalog.TaskType) catalog.State {
		return catalog.State{Queues: []catalog.Queue{q, other}, TaskTypes: types}
	}
	r := newRT(t, both(task("render", 0)))
	r.enqueueN("render", 20)
	r.register("w")

	// Limit 3 added while 20 are pending: a claim admits 3.
	r.Apply(both(task("render", 3)))
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 50)
	require.NoError(t, err)
	require.Len(t, ids, 3)
	r.RequireInvariants()

	// Limit removed while 3 run: the rest claim freely; the running ones
	// finish normally and release nothing.
	r.Apply(both(task("render", 0)))
	more, err := claim(bg, r.Pool, r.Schema, "q", "w", 50)
	require.NoError(t, err)
	require.Len(t, more, 17)
	var n int
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w')`, append(ids, more...))
	require.Equal(t, 20, n)
	r.RequireInvariants()

	// Moved to another queue: pending tasks follow.
	r.enqueueN("render", 5)
	moved := task("render", 2)
	moved.Queue = "other"
	r.Apply(both(moved))
	ids, err = claim(bg, r.Pool, r.Schema, "q", "w", 50)
	require.NoError(t, err)
	require.Empty(t, ids)
	ids, err = claim(bg, r.Pool, r.Schema, "other", "w", 50)
	require.NoError(t, err)
	require.Len(t, ids, 2, "and obey the limit there")

	// Handing back: pending again, the attempt not counted, slots released.
	r.Scalar(&n, `SELECT {{schema}}.release($1, 'w')`, ids)
	require.Equal(t, 2, n)
	var attempts int
	r.Scalar(&attempts, `SELECT max(attempts) FROM {{schema}}.tasks WHERE id = ANY($1)`, ids)
	require.Zero(t, attempts)
	r.RequireInvariants()

	// Deleted type: its limited pending tasks become claimable as unlimited.
	r.Apply(catalog.State{Queues: []catalog.Queue{q, other}})
	ids, err = claim(bg, r.Pool, r.Schema, "other", "w", 50)
	require.NoError(t, err)
	require.Len(t, ids, 5)
	r.RequireInvariants()
}
