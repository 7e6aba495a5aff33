package report

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLatencyHistogram: log-spaced buckets from the smallest sample to the
// largest, every sample counted once.
func TestLatencyHistogram(t *testing.T) {
	require.Nil(t, latencyHistogram(nil))
	require.Equal(t, &Histogram{Bounds: []float64{0.001}, Counts: []int{3}},
		latencyHistogram([]time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}))

	var d []time.Duration
	for us := 100; us <= 100_000; us += 100 {
		d = append(d, time.Duration(us)*time.Microsecond)
	}
	h := latencyHistogram(d)
	require.Len(t, h.Bounds, 20)
	require.Len(t, h.Counts, 20)
	require.Equal(t, 0.1, h.Bounds[19], "the last bound is the largest sample")
	require.InDelta(t, 0.0001*math.Pow(1000, 1.0/20), h.Bounds[0], 1e-12)
	require.True(t, slices.IsSorted(h.Bounds))
	total := 0
	for _, n := range h.Counts {
		total += n
	}
	require.Equal(t, len(d), total)
	require.Equal(t, 1, h.Counts[0], "0.1 ms alone up to 0.141 ms")
	require.Greater(t, h.Counts[19], h.Counts[10], "uniform samples crowd the top log buckets")
}
