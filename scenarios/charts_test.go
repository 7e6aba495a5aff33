package scenarios

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// chartTestRun is a synthetic run shaped like the suite's scenario files:
// drain scenarios against a baseline (one threshold of each outcome), a
// binding scenario alone, and counters scenarios: four strategies at 8
// clients, three hot-scope sweeps (8 and 64 clients) and rows-per-scope
// pairs.
func chartTestRun() *SuiteResult {
	rng := rand.New(rand.NewPCG(7, 9))
	rounds := 5
	perRound := func(w Workload, name string, mean, sd float64) MetricResult {
		m, _ := LookupMetric(w, name)
		xs := cmpNoisy(rng, rounds, mean, sd)
		r := ratioStats(xs)
		return MetricResult{Name: name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter, Samples: xs,
			Value: r.Median, N: rounds, Low: r.Low, High: r.High, Level: r.Level}
	}
	// latency returns name's metric: a percentile of log-normal round
	// trips around median seconds, with their histogram.
	latency := func(w Workload, name string, q, medianSec, spread float64) MetricResult {
		m, _ := LookupMetric(w, name)
		var samples []time.Duration
		for range 5000 {
			samples = append(samples, time.Duration(medianSec*math.Exp(spread*rng.NormFloat64())*1e9))
		}
		l := latencyStats(samples)
		v := l.P50 / 1e6
		if q > 0.5 {
			v = l.P99 / 1e6
		}
		h := &Histogram{}
		for b := 1e-6; ; b *= 1.25 {
			n := 0
			for _, d := range samples {
				if s := d.Seconds(); s <= b && s > b/1.25 {
					n++
				}
			}
			h.Bounds = append(h.Bounds, b)
			h.Counts = append(h.Counts, n)
			if b > l.Max/1e6 {
				break
			}
		}
		return MetricResult{Name: name, Unit: m.Unit, Samples: []float64{v, v, v, v, v}, Value: v, N: len(samples), Histogram: h}
	}
	threshold := func(min float64, st Status) []ThresholdResult {
		return []ThresholdResult{{Metric: "throughput_ratio", Min: &min, Status: st, Where: "drain.hcl:1:1"}}
	}
	drain := func(name, against string, tput, ratio, claim float64, th []ThresholdResult) ScenarioResult {
		s := ScenarioResult{Name: name, Workload: WorkloadDrain, Against: against, File: "drain.hcl",
			Size: Size{Tasks: 200_000, Rounds: rounds, Workers: 1, PoolSize: 4, BatchSize: 200}, Thresholds: th}
		s.Metrics = append(s.Metrics, perRound(WorkloadDrain, "throughput", tput, 0.02))
		if against != "" {
			s.Metrics = append(s.Metrics, perRound(WorkloadDrain, "throughput_ratio", ratio, 0.015))
		}
		s.Metrics = append(s.Metrics,
			latency(WorkloadDrain, "claim_p50", 0.5, claim, 0.5),
			latency(WorkloadDrain, "claim_p99", 0.99, claim, 0.5),
			latency(WorkloadDrain, "complete_p50", 0.5, claim*0.7, 0.4),
			latency(WorkloadDrain, "complete_p99", 0.99, claim*0.7, 0.4))
		return s
	}
	counters := func(name, against string, clients int, tput, ratio float64, th []ThresholdResult) ScenarioResult {
		s := ScenarioResult{Name: name, Workload: WorkloadCounters, Against: against, File: "counters.hcl",
			Size: Size{Rounds: rounds, Clients: clients, Duration: time.Second}, Thresholds: th}
		s.Metrics = append(s.Metrics, perRound(WorkloadCounters, "throughput", tput, 0.03))
		if against != "" {
			s.Metrics = append(s.Metrics, perRound(WorkloadCounters, "throughput_ratio", ratio, 0.02))
		}
		s.Metrics = append(s.Metrics,
			latency(WorkloadCounters, "insert_p50", 0.5, 0.002*float64(clients)/8, 0.3),
			latency(WorkloadCounters, "insert_p99", 0.99, 0.002*float64(clients)/8, 0.3))
		return s
	}
	return &SuiteResult{
		FormatVersion: ResultFormatVersion,
		Environment:   Environment{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", NumCPU: 2, Postgres: "PostgreSQL 17.4"},
		Scenarios: []ScenarioResult{
			drain("baseline", "", 21_000, 0, 0.0004, nil),
			drain("enabled", "baseline", 16_200, 0.77, 0.0006, threshold(0.85, StatusMissed)),
			drain("mixed", "baseline", 20_600, 0.98, 0.00045, threshold(0.95, StatusMet)),
			drain("many", "baseline", 14_000, 0.67, 0.0009, threshold(0.80, StatusInconclusive)),
			drain("high-baseline", "", 48_000, 0, 0.0011, nil),
			drain("high", "high-baseline", 15_000, 0.31, 0.0025, nil),
			drain("binding", "", 800, 0, 0.0003, nil),
			{Name: "plan", Workload: WorkloadExplain, Size: Size{Tasks: 100_000}, Metrics: []MetricResult{{Name: "seq_scans", Unit: UnitCount, Samples: []float64{0}, N: 1}}},
			counters("spread-plain", "", 8, 9_000, 0, nil),
			counters("spread-counter_table", "spread-plain", 8, 7_400, 0.82, threshold(0.70, StatusMet)),
			counters("spread-advisory_lock", "spread-plain", 8, 6_900, 0.77, nil),
			counters("spread-optimistic", "spread-plain", 8, 6_100, 0.68, nil),
			counters("hot-counter_table-8", "", 8, 3_100, 0, nil),
			counters("hot-counter_table-64", "hot-counter_table-8", 64, 2_700, 0.87, threshold(0.80, StatusMet)),
			counters("hot-advisory_lock-8", "", 8, 2_600, 0, nil),
			counters("hot-advisory_lock-64", "hot-advisory_lock-8", 64, 1_900, 0.73, nil),
			counters("hot-optimistic-8", "", 8, 1_400, 0, nil),
			counters("hot-optimistic-64", "hot-optimistic-8", 64, 500, 0.36, nil),
			counters("rows-counter_table-1k", "", 8, 7_800, 0, nil),
			counters("rows-counter_table-100k", "rows-counter_table-1k", 8, 7_700, 0.99, nil),
		},
	}
}

func TestWriteCharts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "charts")
	files, err := WriteCharts(dir, chartTestRun())
	require.NoError(t, err)
	var want []string
	for _, base := range []string{
		"throughput-drain", "ratio-drain", "latency-drain",
		"throughput-counters", "ratio-counters", "latency-counters", "clients-counters",
	} {
		want = append(want, base+".png", base+".svg")
	}
	require.Equal(t, want, files)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		switch filepath.Ext(f) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(b))
			require.NoError(t, err, f)
			require.Greater(t, img.Bounds().Dx(), 600, f)
			require.Greater(t, img.Bounds().Dy(), 300, f)
		case ".svg":
			var root struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
			}
			require.NoError(t, xml.Unmarshal(b, &root), f)
			require.Equal(t, "svg", root.XMLName.Local, f)
			require.NotEmpty(t, root.Width, f)
		}
	}
}

func TestWriteChartsNothingToDraw(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "charts")
	files, err := WriteCharts(dir, &SuiteResult{Scenarios: []ScenarioResult{
		{Name: "plan", Workload: WorkloadExplain, Metrics: []MetricResult{{Name: "seq_scans", Unit: UnitCount, Samples: []float64{0}, N: 1}}},
	}})
	require.NoError(t, err)
	require.Empty(t, files)
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "no directory without charts")
}

func TestChartGroups(t *testing.T) {
	t.Parallel()
	scs := []*ScenarioResult{
		{Name: "enabled", Against: "baseline"}, {Name: "baseline"}, {Name: "alone"},
		{Name: "chained", Against: "enabled"}, {Name: "orphan", Against: "missing"},
		{Name: "loop-a", Against: "loop-b"}, {Name: "loop-b", Against: "loop-a"},
	}
	var names [][]string
	for _, g := range chartGroups(scs) {
		var ns []string
		for _, s := range g {
			ns = append(ns, s.Name)
		}
		names = append(names, ns)
	}
	require.Equal(t, [][]string{{"baseline", "enabled", "chained"}, {"alone"}, {"orphan"}, {"loop-a", "loop-b"}}, names)
	require.Equal(t, "hot-counter_table", chartCommonName([]string{"hot-counter_table-8", "hot-counter_table-64"}))
	require.Equal(t, "a, b", chartCommonName([]string{"a", "b"}))
}
