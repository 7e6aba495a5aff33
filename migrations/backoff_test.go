package migrations_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// TestBackoffNeverOverflows: the retry delay is defined for every attempt
// and factor — it reaches max and stays there — and a task failed again
// and again always goes back to pending (or to the dead letter), never
// stuck running with its slot.
func TestBackoffNeverOverflows(t *testing.T) {
	t.Parallel()
	q := queueCfg("q", func(q *catalog.Queue) {
		q.MaxRetries = 1000
		q.Backoff = catalog.Backoff{Initial: catalog.Duration(1e9), Max: catalog.Duration(600e9), Factor: 2, Jitter: 0.2}
	})
	r := newRT(t, state(q, task("flaky", 3)))

	for _, factor := range []float64{1, 1.5, 2, catalog.MaxBackoffFactor, 1e308} {
		// 1e308 is beyond what validation allows: set by hand, as a
		// database older than the bound or an edited row could hold it.
		r.Exec(`UPDATE {{schema}}.queues SET backoff_factor = $1`, factor)
		var lo, hi float64
		r.Scalar(&lo, `SELECT min(extract(epoch FROM {{schema}}.backoff_delay(q, a)))::float8
			FROM {{schema}}.queues q, generate_series(1, 5000) a`)
		r.Scalar(&hi, `SELECT max(extract(epoch FROM {{schema}}.backoff_delay(q, a)))::float8
			FROM {{schema}}.queues q, generate_series(1, 5000) a`)
		require.GreaterOrEqual(t, lo, 0.8, "factor %g: never below initial - jitter", factor)
		require.LessOrEqual(t, hi, 720.0, "factor %g: never above max + jitter", factor)
	}

	// Fail one task 60 times with the largest factor validation allows
	// (attempt 45 overflowed with factor 2 before): each time it goes back
	// to pending and gives its slot back.
	r.Exec(`UPDATE {{schema}}.queues SET backoff_factor = $1`, catalog.MaxBackoffFactor)
	r.register("w")
	var id int64
	r.Scalar(&id, `SELECT {{schema}}.enqueue('flaky')`)
	for i := 1; i <= 60; i++ {
		r.Exec(`UPDATE {{schema}}.tasks SET run_at = now() WHERE id = $1`, id)
		ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
		require.NoError(t, err)
		require.Equal(t, []int64{id}, ids, "failure %d", i)
		var status string
		r.Scalar(&status, `SELECT {{schema}}.fail($1, 'w', 'boom')`, id)
		require.Equal(t, "pending", status, "failure %d", i)
		require.Zero(t, r.running("flaky"), "failure %d: nothing left running", i)
	}
	var delay float64
	r.Scalar(&delay, `SELECT extract(epoch FROM run_at - updated_at)::float8 FROM {{schema}}.tasks WHERE id = $1`, id)
	require.InDelta(t, 600, delay, 120, "capped at max ± jitter")
	r.RequireInvariants()
}
