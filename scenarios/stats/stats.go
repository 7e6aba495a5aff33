// Package stats holds the statistics of pgseq's benchmarks: the median of
// per-round values with a distribution-free confidence interval and the
// geometric mean with its Student-t interval (Ratio), latency percentiles
// (Latency), and the Mann–Whitney U test that compares two runs' samples.
package stats

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ciLevel is the confidence level intervals aim for.
const ciLevel = 0.95

// Ratio summarises a variant's throughput against the baseline's over paired
// rounds: ratio i is variant/baseline of round i, both measured in the same
// run, one after the other.
type Ratio struct {
	// N is the number of paired rounds.
	N int `json:"n"`
	// Ratios are the per-round ratios, in round order.
	Ratios []float64 `json:"ratios"`
	// Median is the median ratio.
	Median float64 `json:"median"`
	// Low and High bound a distribution-free confidence interval of the
	// median (order statistics of the sorted ratios), at Level: the
	// narrowest such interval with Level ≥ 0.95, or with few rounds the
	// widest one (min..max) and its lower level (0.75 for 3 rounds, 0.875
	// for 4, 0.9375 for 5).
	Low   float64 `json:"ci_low"`
	High  float64 `json:"ci_high"`
	Level float64 `json:"ci_level"`
	// GeoMean is the geometric mean ratio, GeoLow and GeoHigh its 95%
	// Student-t interval (computed on the logarithms). Zero when N < 2.
	GeoMean float64 `json:"geo_mean"`
	GeoLow  float64 `json:"geo_ci95_low"`
	GeoHigh float64 `json:"geo_ci95_high"`
}

// NewRatio summarises paired ratios, in round order.
func NewRatio(ratios []float64) Ratio {
	r := Ratio{N: len(ratios), Ratios: slices.Clone(ratios)}
	if r.N == 0 {
		return r
	}
	sorted := slices.Clone(ratios)
	slices.Sort(sorted)
	r.Median = Median(sorted)
	// [x(k), x(n-k+1)] covers the median with probability
	// 1 - 2·P(B ≤ k-1), B ~ Binomial(n, 1/2).
	b := distuv.Binomial{N: float64(r.N), P: 0.5}
	k := 1
	for k+1 <= (r.N+1)/2 && 1-2*b.CDF(float64(k)) >= ciLevel {
		k++
	}
	r.Low, r.High = sorted[k-1], sorted[r.N-k]
	r.Level = 1 - 2*b.CDF(float64(k-1))
	if r.N >= 2 {
		logs := make([]float64, r.N)
		for i, x := range ratios {
			logs[i] = math.Log(x)
		}
		mean, sd := stat.MeanStdDev(logs, nil)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.N - 1)}.Quantile(1 - (1-ciLevel)/2)
		half := t * sd / math.Sqrt(float64(r.N))
		r.GeoMean, r.GeoLow, r.GeoHigh = math.Exp(mean), math.Exp(mean-half), math.Exp(mean+half)
	}
	return r
}

// FormatLevel renders the level of a confidence interval (Ratio.Level,
// report.MetricResult.Level) as every report, verdict and chart prints it:
// with one decimal, "93.8%" for the min–max of 5 rounds (0.9375), never
// rounded to a whole percent that claims more (94%) or less (93%) than the
// interval has.
func FormatLevel(level float64) string { return fmt.Sprintf("%.1f%%", level*100) }

// FormatLevels renders the levels of several intervals (zeros, metrics
// without one, left out): the one level, or the lowest and the highest
// ("75.0%–93.8%") when the numbers of rounds differ; "" for none.
func FormatLevels(levels []float64) string {
	lo, hi := math.Inf(1), 0.0
	for _, l := range levels {
		if l > 0 {
			lo, hi = min(lo, l), max(hi, l)
		}
	}
	switch {
	case hi == 0:
		return ""
	case FormatLevel(lo) == FormatLevel(hi):
		return FormatLevel(lo)
	}
	return FormatLevel(lo) + "–" + FormatLevel(hi)
}

// Latency summarises round-trip latencies.
type Latency struct {
	// Count is the number of round trips.
	Count int `json:"count"`
	// P50, P99 and Max are in microseconds.
	P50 float64 `json:"p50_us"`
	P99 float64 `json:"p99_us"`
	Max float64 `json:"max_us"`
	// Mean is in microseconds.
	Mean float64 `json:"mean_us"`
}

// NewLatency summarises round trips: their count, empirical percentiles,
// maximum and mean.
func NewLatency(d []time.Duration) Latency {
	l := Latency{Count: len(d)}
	if l.Count == 0 {
		return l
	}
	xs := make([]float64, len(d))
	for i, v := range d {
		xs[i] = float64(v) / float64(time.Microsecond)
	}
	slices.Sort(xs)
	l.P50 = stat.Quantile(0.5, stat.Empirical, xs, nil)
	l.P99 = stat.Quantile(0.99, stat.Empirical, xs, nil)
	l.Max = xs[len(xs)-1]
	l.Mean = stat.Mean(xs, nil)
	return l
}

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
