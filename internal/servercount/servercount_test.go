package servercount_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/servercount"
)

// TestCountsAreRepeatable runs the same workload three times on a counted
// server (after one that warms it up), in two connections each time, and
// checks that every run is counted once, whole, and within 1% of the
// others, its functions summing to its count; and that a workload doing
// more work counts more.
func TestCountsAreRepeatable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := servercount.Start(ctx)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Stop(context.Background())) }()

	work := func(rows int) servercount.Count {
		for range 2 {
			conn, err := pgx.Connect(ctx, s.URL())
			require.NoError(t, err)
			var n int64
			require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM generate_series(1, $1) g WHERE g % 7 = 0`, rows).Scan(&n))
			require.NoError(t, conn.Close(ctx))
		}
		c, err := s.Collect(ctx)
		require.NoError(t, err)
		var sum uint64
		for _, n := range c.Functions {
			sum += n
		}
		require.Equal(t, c.Instructions, sum, "the functions sum to the summaries")
		return c
	}
	// A new server's first connections build its caches (the relation
	// cache's init file): not counted.
	work(200_000)
	var counts []float64
	for range 3 {
		c := work(200_000)
		require.Equal(t, 2, c.Processes, "one count per connection")
		counts = append(counts, float64(c.Instructions))
	}
	for _, c := range counts[1:] {
		require.InDelta(t, 0, math.Log(c/counts[0]), 0.01, "the same workload counted %v", counts)
	}
	more := work(400_000)
	require.Greater(t, float64(more.Instructions), counts[0]*1.2, "twice the rows count more")
	// The stripped server's functions are named by their exported
	// symbols ("???:BufFileRead"); its static ones read "???:???".
	named := false
	for _, f := range more.Sorted()[:5] {
		named = named || strings.HasPrefix(f.Name, "???:") && f.Name != "???:???"
	}
	require.True(t, named, "a PostgreSQL function among the most instructions: %v", more.Sorted()[:5])

	// Nothing ran since: nothing to count.
	c, err := s.Collect(ctx)
	require.NoError(t, err)
	require.Equal(t, servercount.Count{}, c)
}
