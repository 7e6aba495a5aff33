package report

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// NewMetricResult returns an empty result of the workload's metric name,
// with its unit and direction. The name must be one of
// scenariofile.Metrics.
func NewMetricResult(w scenariofile.Workload, name string) MetricResult {
	m, ok := scenariofile.LookupMetric(w, name)
	if !ok {
		panic(fmt.Sprintf("report: no metric %q for workload %s", name, w))
	}
	return MetricResult{Name: m.Name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter}
}

// PerRoundMetric is a per-round metric with one sample per round, in round
// order: its value is their median, with (from 2 rounds) the
// distribution-free interval of the median stats.NewRatio computes.
func PerRoundMetric(w scenariofile.Workload, name string, samples []float64) MetricResult {
	m := NewMetricResult(w, name)
	m.Samples = slices.Clone(samples)
	if m.Samples == nil {
		m.Samples = []float64{}
	}
	m.N = len(samples)
	if m.N == 0 {
		return m
	}
	x := stats.NewRatio(samples)
	m.Value = x.Median
	if m.N >= 2 {
		m.Low, m.High, m.Level = x.Low, x.High, x.Level
	}
	return m
}

// LatencyMetric is the q-quantile (0.5: p50) of latencies, in seconds, for
// rounds of latency samples in round order: Samples are each round's
// quantile (rounds without samples are left out), Value the quantile of
// all rounds pooled, N the pooled count and Histogram their distribution.
// Quantiles are empirical, as in Latency.
func LatencyMetric(w scenariofile.Workload, name string, q float64, rounds [][]time.Duration) MetricResult {
	m := NewMetricResult(w, name)
	m.Samples = []float64{}
	var pooled []time.Duration
	for _, r := range rounds {
		if len(r) == 0 {
			continue
		}
		m.Samples = append(m.Samples, stat.Quantile(q, stat.Empirical, sortedSeconds(r), nil))
		pooled = append(pooled, r...)
	}
	m.N = len(pooled)
	if m.N == 0 {
		return m
	}
	m.Value = stat.Quantile(q, stat.Empirical, sortedSeconds(pooled), nil)
	m.Histogram = latencyHistogram(pooled)
	return m
}

// sortedSeconds returns d in seconds, sorted.
func sortedSeconds(d []time.Duration) []float64 {
	xs := make([]float64, len(d))
	for i, v := range d {
		xs[i] = v.Seconds()
	}
	slices.Sort(xs)
	return xs
}

// latencyHistogramBuckets is how many buckets latencyHistogram makes.
const latencyHistogramBuckets = 20

// latencyHistogram counts latencies, in seconds, in 20 buckets spaced
// evenly on a log scale from the smallest to the largest (whose bound is
// the largest exactly); with all samples equal (or one not positive), in
// one bucket bounded by the largest. Nil for no samples.
func latencyHistogram(d []time.Duration) *Histogram {
	if len(d) == 0 {
		return nil
	}
	xs := sortedSeconds(d)
	lo, hi := xs[0], xs[len(xs)-1]
	if lo <= 0 || lo == hi {
		return &Histogram{Bounds: []float64{hi}, Counts: []int{len(xs)}}
	}
	h := &Histogram{Bounds: make([]float64, latencyHistogramBuckets), Counts: make([]int, latencyHistogramBuckets)}
	step := math.Log(hi/lo) / latencyHistogramBuckets
	for i := range h.Bounds {
		h.Bounds[i] = lo * math.Exp(step*float64(i+1))
	}
	h.Bounds[len(h.Bounds)-1] = hi
	b := 0
	for _, x := range xs {
		for x > h.Bounds[b] && b < len(h.Bounds)-1 {
			b++
		}
		h.Counts[b]++
	}
	return h
}
