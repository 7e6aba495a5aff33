package migrations_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A worker that stops calls unregister_worker: what it still runs goes
// back (the units pass to the waiting tasks), it gives up the lease, and
// its row is gone, so that it is never shown dead.
func TestUnregisterWorkerLeavesNoTrace(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lim", 2)))
	r.enqueueN("lim", 5)
	r.register("w")
	var leader bool
	r.Scalar(&leader, `SELECT {{schema}}.elect_leader('w')`)
	require.True(t, leader)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, ids, 2, "the limit admits 2")

	var back int
	r.Scalar(&back, `SELECT {{schema}}.unregister_worker('w')`)
	require.Equal(t, 2, back, "its 2 running tasks went back")
	require.Equal(t, 0, r.running("lim"))
	require.Equal(t, map[string]int{"pending": 5}, r.StatusCounts())
	var attempts int
	r.Scalar(&attempts, `SELECT coalesce(sum(attempts), 0) FROM {{schema}}.tasks`)
	require.Zero(t, attempts, "a put-back attempt is not counted")
	r.RequireInvariants()

	var rows int
	r.Scalar(&rows, `SELECT count(*) FROM {{schema}}.workers WHERE id = 'w'`)
	require.Zero(t, rows, "its row is gone")
	r.register("other")
	r.Scalar(&leader, `SELECT {{schema}}.elect_leader('other')`)
	require.True(t, leader, "the lease was given up: another worker leads at once")

	// Its tasks are claimable by the others, within the limit.
	ids, err = claim(bg, r.Pool, r.Schema, "q", "other", 10)
	require.NoError(t, err)
	require.Len(t, ids, 2)

	// Unknown or already gone: nothing to do.
	r.Scalar(&back, `SELECT {{schema}}.unregister_worker('w')`)
	require.Zero(t, back)
	r.Scalar(&back, `SELECT {{schema}}.unregister_worker('never-was')`)
	require.Zero(t, back)
	r.RequireInvariants()
}
