package stats

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRatioStats(t *testing.T) {
	r := NewRatio([]float64{0.97, 0.95, 0.99})
	require.Equal(t, 3, r.N)
	require.InDelta(t, 0.97, r.Median, 1e-12)
	require.Equal(t, 0.95, r.Low)
	require.Equal(t, 0.99, r.High)
	require.InDelta(t, 0.75, r.Level, 1e-12, "three rounds: min..max covers the median 75% of the time")
	require.Less(t, r.GeoLow, r.GeoMean)
	require.Greater(t, r.GeoHigh, r.GeoMean)
	require.InDelta(t, math.Cbrt(0.97*0.95*0.99), r.GeoMean, 1e-12)

	// With 9 rounds the 95% interval drops the two extremes of each side:
	// [x(2), x(8)] covers with 1 - 2·P(B ≤ 1) = 0.9609.
	r = NewRatio([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	require.Equal(t, 5.0, r.Median)
	require.Equal(t, 2.0, r.Low)
	require.Equal(t, 8.0, r.High)
	require.InDelta(t, 0.9609, r.Level, 1e-4)

	r = NewRatio([]float64{1, 3})
	require.Equal(t, 2.0, r.Median)

	r = NewRatio([]float64{1.1})
	require.Equal(t, 1.1, r.Median)
	require.Zero(t, r.GeoMean, "no interval from one round")
}

func TestLatencyStats(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Microsecond)
	}
	l := NewLatency(d)
	require.Equal(t, 100, l.Count)
	require.Equal(t, 50.0, l.P50)
	require.Equal(t, 99.0, l.P99)
	require.Equal(t, 100.0, l.Max)
	require.InDelta(t, 50.5, l.Mean, 1e-9)
	require.Equal(t, Latency{}, NewLatency(nil))
}

// Intervals of several levels (rounds differ) are named by their range.
func TestFormatLevels(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", FormatLevels(nil))
	require.Equal(t, "", FormatLevels([]float64{0, 0}))
	require.Equal(t, "93.8%", FormatLevels([]float64{0.9375, 0, 0.9375}))
	require.Equal(t, "75.0%–96.1%", FormatLevels([]float64{0.9609, 0.75, 0.9375}))
}
