package charts

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgseq/pgseq/scenarios/internal/fixture"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// chartTestRun is a synthetic run shaped like the suite's scenario files:
// drain scenarios against a baseline (one threshold of each outcome), a
// binding scenario alone (its ideal_share missed), and counters scenarios: four strategies at 8
// clients, three hot-scope sweeps (8 and 64 clients) and rows-per-scope
// pairs.
func chartTestRun() *report.SuiteResult {
	rng := rand.New(rand.NewPCG(7, 9))
	rounds := 5
	perRound := func(w scenariofile.Workload, name string, mean, sd float64) report.MetricResult {
		m, _ := scenariofile.LookupMetric(w, name)
		xs := fixture.Noisy(rng, rounds, mean, sd)
		r := stats.NewRatio(xs)
		return report.MetricResult{Name: name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter, Samples: xs,
			Value: r.Median, N: rounds, Low: r.Low, High: r.High, Level: r.Level}
	}
	// latency returns name's metric: a percentile of log-normal round
	// trips around median seconds, with their histogram.
	latency := func(w scenariofile.Workload, name string, q, medianSec, spread float64) report.MetricResult {
		m, _ := scenariofile.LookupMetric(w, name)
		var samples []time.Duration
		for range 5000 {
			samples = append(samples, time.Duration(medianSec*math.Exp(spread*rng.NormFloat64())*1e9))
		}
		l := stats.NewLatency(samples)
		v := l.P50 / 1e6
		if q > 0.5 {
			v = l.P99 / 1e6
		}
		h := &report.Histogram{}
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
		return report.MetricResult{Name: name, Unit: m.Unit, Samples: []float64{v, v, v, v, v}, Value: v, N: len(samples), Histogram: h}
	}
	threshold := func(min float64, st report.Status) []report.ThresholdResult {
		return []report.ThresholdResult{{Metric: "throughput_ratio", Min: &min, Status: st, Where: "drain.hcl:1:1"}}
	}
	drain := func(name, against string, tput, ratio, claim float64, th []report.ThresholdResult) report.ScenarioResult {
		s := report.ScenarioResult{Name: name, Workload: scenariofile.WorkloadDrain, Against: against, File: "drain.hcl",
			Size: scenariofile.Size{Tasks: 200_000, Rounds: rounds, Workers: 1, PoolSize: 4, BatchSize: 200}, Thresholds: th}
		s.Metrics = append(s.Metrics, perRound(scenariofile.WorkloadDrain, "throughput", tput, 0.02))
		if against != "" {
			s.Metrics = append(s.Metrics, perRound(scenariofile.WorkloadDrain, "throughput_ratio", ratio, 0.015))
		}
		s.Metrics = append(s.Metrics,
			latency(scenariofile.WorkloadDrain, "claim_p50", 0.5, claim, 0.5),
			latency(scenariofile.WorkloadDrain, "claim_p99", 0.99, claim, 0.5),
			latency(scenariofile.WorkloadDrain, "complete_p50", 0.5, claim*0.7, 0.4),
			latency(scenariofile.WorkloadDrain, "complete_p99", 0.99, claim*0.7, 0.4))
		return s
	}
	counters := func(name, against string, clients int, tput, ratio float64, th []report.ThresholdResult) report.ScenarioResult {
		s := report.ScenarioResult{Name: name, Workload: scenariofile.WorkloadCounters, Against: against, File: "counters.hcl",
			Size: scenariofile.Size{Rounds: rounds, Clients: clients, Duration: time.Second}, Thresholds: th}
		s.Metrics = append(s.Metrics, perRound(scenariofile.WorkloadCounters, "throughput", tput, 0.03))
		if against != "" {
			s.Metrics = append(s.Metrics, perRound(scenariofile.WorkloadCounters, "throughput_ratio", ratio, 0.02))
		}
		s.Metrics = append(s.Metrics,
			latency(scenariofile.WorkloadCounters, "insert_p50", 0.5, 0.002*float64(clients)/8, 0.3),
			latency(scenariofile.WorkloadCounters, "insert_p99", 0.99, 0.002*float64(clients)/8, 0.3))
		return s
	}
	binding := drain("binding", "", 800, 0, 0.0003, nil)
	binding.Metrics = append(binding.Metrics, perRound(scenariofile.WorkloadDrain, "ideal_share", 0.83, 0.02))
	share := 0.90
	binding.Thresholds = []report.ThresholdResult{{Metric: "ideal_share", Min: &share, Status: report.StatusMissed, Where: "drain.hcl:1:1"}}
	return &report.SuiteResult{
		FormatVersion: report.ResultFormatVersion,
		Environment:   report.Environment{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", NumCPU: 2, Postgres: "PostgreSQL 17.4"},
		Scenarios: []report.ScenarioResult{
			drain("baseline", "", 21_000, 0, 0.0004, nil),
			drain("enabled", "baseline", 16_200, 0.77, 0.0006, threshold(0.85, report.StatusMissed)),
			drain("mixed", "baseline", 20_600, 0.98, 0.00045, threshold(0.95, report.StatusMet)),
			drain("many", "baseline", 14_000, 0.67, 0.0009, threshold(0.80, report.StatusInconclusive)),
			drain("high-baseline", "", 48_000, 0, 0.0011, nil),
			drain("high", "high-baseline", 15_000, 0.31, 0.0025, nil),
			binding,
			{Name: "plan", Workload: scenariofile.WorkloadExplain, Size: scenariofile.Size{Tasks: 100_000}, Metrics: []report.MetricResult{{Name: "seq_scans", Unit: scenariofile.UnitCount, Samples: []float64{0}, N: 1}}},
			counters("spread-plain", "", 8, 9_000, 0, nil),
			counters("spread-counter_table", "spread-plain", 8, 7_400, 0.82, threshold(0.70, report.StatusMet)),
			counters("spread-advisory_lock", "spread-plain", 8, 6_900, 0.77, nil),
			counters("spread-optimistic", "spread-plain", 8, 6_100, 0.68, nil),
			counters("hot-counter_table-8", "", 8, 3_100, 0, nil),
			counters("hot-counter_table-64", "hot-counter_table-8", 64, 2_700, 0.87, threshold(0.80, report.StatusMet)),
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
	files, err := Write(dir, chartTestRun())
	require.NoError(t, err)
	var want []string
	for _, base := range []string{
		"throughput-drain", "ratio-drain", "ideal-share-drain", "latency-drain",
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
	files, err := Write(dir, &report.SuiteResult{Scenarios: []report.ScenarioResult{
		{Name: "plan", Workload: scenariofile.WorkloadExplain, Metrics: []report.MetricResult{{Name: "seq_scans", Unit: scenariofile.UnitCount, Samples: []float64{0}, N: 1}}},
	}})
	require.NoError(t, err)
	require.Empty(t, files)
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "no directory without charts")
}

func TestChartGroups(t *testing.T) {
	t.Parallel()
	scs := []*report.ScenarioResult{
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

// chartCanvas is a vg.Canvas that records what a chart draws: the text
// (not rotated) with its box, and the stroked lines with their colour and
// width. Charts draw without transforms but for rotated text.
type chartCanvas struct {
	color   color.Color
	width   vg.Length
	rotated []bool
	texts   []chartText
	strokes []chartStroke
}

type chartText struct {
	text string
	box  vg.Rectangle
}

type chartStroke struct {
	color color.Color
	width vg.Length
	box   vg.Rectangle
}

func (c *chartCanvas) SetLineWidth(w vg.Length)            { c.width = w }
func (c *chartCanvas) SetLineDash([]vg.Length, vg.Length)  {}
func (c *chartCanvas) SetColor(col color.Color)            { c.color = col }
func (c *chartCanvas) Rotate(float64)                      { c.rotated[len(c.rotated)-1] = true }
func (c *chartCanvas) Translate(vg.Point)                  {}
func (c *chartCanvas) Scale(float64, float64)              {}
func (c *chartCanvas) Push()                               { c.rotated = append(c.rotated, c.rotated[len(c.rotated)-1]) }
func (c *chartCanvas) Pop()                                { c.rotated = c.rotated[:len(c.rotated)-1] }
func (c *chartCanvas) Fill(vg.Path)                        {}
func (c *chartCanvas) DrawImage(vg.Rectangle, image.Image) {}

func (c *chartCanvas) Stroke(p vg.Path) {
	box := vg.Rectangle{Min: vg.Point{X: math.MaxFloat64, Y: math.MaxFloat64}, Max: vg.Point{X: -math.MaxFloat64, Y: -math.MaxFloat64}}
	for _, comp := range p {
		if comp.Type == vg.MoveComp || comp.Type == vg.LineComp {
			box.Min.X, box.Min.Y = min(box.Min.X, comp.Pos.X), min(box.Min.Y, comp.Pos.Y)
			box.Max.X, box.Max.Y = max(box.Max.X, comp.Pos.X), max(box.Max.Y, comp.Pos.Y)
		}
	}
	// Butt caps: a line is widened across its length only.
	half := c.width / 2
	if box.Max.X-box.Min.X < box.Max.Y-box.Min.Y {
		box.Min.X, box.Max.X = box.Min.X-half, box.Max.X+half
	} else {
		box.Min.Y, box.Max.Y = box.Min.Y-half, box.Max.Y+half
	}
	c.strokes = append(c.strokes, chartStroke{c.color, c.width, box})
}

func (c *chartCanvas) FillString(f font.Face, pt vg.Point, text string) {
	if c.rotated[len(c.rotated)-1] {
		return
	}
	e := f.Extents()
	c.texts = append(c.texts, chartText{text, vg.Rectangle{Min: vg.Point{X: pt.X, Y: pt.Y - e.Descent}, Max: vg.Point{X: pt.X + f.Width(text), Y: pt.Y + e.Ascent}}})
}

// drawChart draws fig as Write does and returns what it drew.
func drawChart(fig *chartFigure) *chartCanvas {
	c := &chartCanvas{color: color.Black, width: vg.Points(1), rotated: []bool{false}}
	dc := draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: fig.width, Y: fig.height}}}
	margin := vg.Points(12)
	fig.draw(draw.Crop(dc, margin, -margin, margin/2, -margin/2))
	return c
}

func chartOverlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// chartOneRun is a drain run of scenarios against a baseline, each with
// a throughput_ratio (and ideal_share) of 5 rounds around median and a
// minimum of bound.
func chartOneRun(rows []struct{ median, bound float64 }) [][]*report.ScenarioResult {
	g := []*report.ScenarioResult{{Name: "baseline", Workload: scenariofile.WorkloadDrain}}
	for i, r := range rows {
		samples := []float64{r.median - 0.02, r.median - 0.01, r.median, r.median + 0.01, r.median + 0.02}
		s := fixture.Judged(scenariofile.Scenario{Name: fmt.Sprintf("s%d", i), Workload: scenariofile.WorkloadDrain, Against: "baseline",
			Thresholds: []scenariofile.Threshold{fixture.AtLeast("throughput_ratio", r.bound), fixture.AtLeast("ideal_share", r.bound)}},
			report.PerRoundMetric(scenariofile.WorkloadDrain, "throughput_ratio", samples), report.PerRoundMetric(scenariofile.WorkloadDrain, "ideal_share", samples))
		g = append(g, &s)
	}
	return [][]*report.ScenarioResult{g}
}

// A value label is drawn clear of every threshold bar: its own row's (the
// median next to the bound) and the row's above (a bound under the
// label), on a chart of few rows (tall rows) and of many (short ones).
func TestChartValueLabelsClearTheThresholds(t *testing.T) {
	t.Parallel()
	value := regexp.MustCompile(`^[0-9]+\.[0-9]+[×%]$`)
	type row = struct{ median, bound float64 }
	for _, tc := range []struct {
		name string
		rows []row
	}{
		{"just below its bound", []row{{0.79, 0.80}}},
		{"just above its bound", []row{{0.81, 0.80}, {0.60, 0.55}}},
		{"on its bound", []row{{0.80, 0.80}, {0.95, 0.85}}},
		{"under the bound of the row above, many rows", []row{
			{0.80, 0.80}, {0.80, 0.80}, {0.81, 0.79}, {0.79, 0.81}, {0.80, 0.80}, {0.80, 0.80},
			{0.80, 0.80}, {0.81, 0.79}, {0.79, 0.81}, {0.80, 0.80}, {0.80, 0.80}, {0.80, 0.80}}},
	} {
		for _, chart := range []func(scenariofile.Workload, [][]*report.ScenarioResult) (*chartFigure, error){ratioChart, idealShareChart} {
			fig, err := chart(scenariofile.WorkloadDrain, chartOneRun(tc.rows))
			require.NoError(t, err)
			drawn := drawChart(fig)
			var labels, bars int
			for _, b := range drawn.strokes {
				if b.color != chartVermillion || b.width != vg.Points(2.5) || b.box.Size().X > b.box.Size().Y {
					continue // not a threshold's bar (the legend's is flat)
				}
				bars++
				for _, l := range drawn.texts {
					if value.MatchString(l.text) {
						require.False(t, chartOverlap(l.box, b.box), "%s: %q at %v overlaps the threshold bar at %v", tc.name, l.text, l.box, b.box)
					}
				}
			}
			for _, l := range drawn.texts {
				if value.MatchString(l.text) {
					labels++
				}
			}
			require.Equal(t, len(tc.rows), bars, tc.name)
			require.Equal(t, len(tc.rows), labels, tc.name)
		}
	}
}

// An axis read against 1 always has a labelled tick at 1, whatever its
// range: the default ticks of 0.17–1.47 were 0.2, 0.8 and 1.4.
func TestChartOneTicks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi  float64
		percent bool
		want    []string
	}{
		{0.17, 1.47, false, []string{"0.25", "0.5", "0.75", "1", "1.25"}},
		{0.2, 1.4, false, []string{"0.25", "0.5", "0.75", "1", "1.25"}},
		{0.3, 1.9, false, []string{"0.5", "0.75", "1", "1.25", "1.5", "1.75"}},
		{0.6, 1.3, false, []string{"0.6", "0.8", "1", "1.2"}},
		{0.05, 3.3, false, []string{"0.5", "1", "1.5", "2", "2.5", "3"}},
		{0.7, 1.05, false, []string{"0.7", "0.8", "0.9", "1"}},
		{0.95, 1.03, false, []string{"0.96", "0.98", "1", "1.02"}},
		{0.01, 7, false, []string{"1", "2", "4", "6"}},
		{0, 40, false, []string{"10", "20", "30", "40", "1"}},
		{0.76, 1.12, true, []string{"80%", "90%", "100%", "110%"}},
	} {
		var labels []string
		for _, tick := range (chartOneTicks{percent: tc.percent}).Ticks(tc.lo, tc.hi) {
			require.True(t, tick.Value >= tc.lo && tick.Value <= tc.hi, "%v–%v: tick %v", tc.lo, tc.hi, tick.Value)
			if tick.Label != "" {
				labels = append(labels, tick.Label)
			}
		}
		require.Equal(t, tc.want, labels, "%v–%v", tc.lo, tc.hi)
	}
}

// Every chart of a run with an ideal_share draws it, as the ratio chart
// draws throughput_ratio: the median, its interval, the threshold, the
// line at 1 labelled 100%.
func TestIdealShareChart(t *testing.T) {
	t.Parallel()
	fig, err := idealShareChart(scenariofile.WorkloadDrain, chartOneRun([]struct{ median, bound float64 }{{0.83, 0.90}}))
	require.NoError(t, err)
	var texts []string
	for _, x := range drawChart(fig).texts {
		texts = append(texts, x.text)
	}
	require.Contains(t, texts, "83.0%")
	require.Contains(t, texts, "100%")
	require.Contains(t, texts, "ideal (100%)")
	require.Contains(t, texts, "threshold missed")
	require.Contains(t, texts, "median of 5 rounds; whiskers: min–max of the rounds (a 93.8% confidence interval of the median)")

	fig, err = idealShareChart(scenariofile.WorkloadDrain, chartGroups([]*report.ScenarioResult{{Name: "baseline", Workload: scenariofile.WorkloadDrain}}))
	require.NoError(t, err)
	require.Nil(t, fig, "no ideal_share, no chart")
}

// A zero on the soak chart's log panels is drawn at a tick labelled 0, a
// decade below the lowest positive value's, not at 1 (the log axis's
// floor, where it read as one dead tuple).
func TestSoakChartDrawsZeros(t *testing.T) {
	t.Parallel()
	var samples []report.SoakSample
	for i, dead := range []int64{67, 8, 0, 149, 2, 0, 58} {
		samples = append(samples, report.SoakSample{Seconds: float64(2 * (i + 1)), Claims: 10, ClaimP50: 0.0003, ClaimP99: 0.006,
			Tasks: report.SoakTable{Dead: 1000 * (dead + 1), Bytes: 1 << 20}, Slots: report.SoakTable{Dead: dead, Bytes: 1 << 16}})
	}
	fig, err := soakChart(scenariofile.WorkloadSoak, [][]*report.ScenarioResult{{{Name: "soak", Workload: scenariofile.WorkloadSoak, Soak: &report.SoakRun{Samples: samples}}}})
	require.NoError(t, err)
	dead := fig.below[0]
	require.Equal(t, 0.0, dead.Y.Min)
	ticks := dead.Y.Tick.Marker.Ticks(dead.Y.Min, dead.Y.Max)
	require.Equal(t, plot.Tick{Value: 0, Label: "0"}, ticks[0])
	require.Equal(t, plot.Tick{Value: 1, Label: "1"}, ticks[1])
	at := func(v float64) float64 { return dead.Y.Norm(v) }
	require.Equal(t, 0.0, at(0), "0 at the foot, on its tick")
	require.InEpsilon(t, at(10)-at(1), at(1)-at(0), 0.1, "0 a decade below 1")
	require.Greater(t, at(2), at(1))
	require.Contains(t, fig.plot.Title.Text, "zeros drawn at the foot, labelled 0")

	// Without zeros, the panels stay on plain log scales.
	for i := range samples {
		samples[i].Slots.Dead++
	}
	fig, err = soakChart(scenariofile.WorkloadSoak, [][]*report.ScenarioResult{{{Name: "soak", Workload: scenariofile.WorkloadSoak, Soak: &report.SoakRun{Samples: samples}}}})
	require.NoError(t, err)
	require.Equal(t, plot.LogScale{}, fig.below[0].Y.Scale)
	require.Equal(t, 1.0, fig.below[0].Y.Min)
	require.NotContains(t, fig.plot.Title.Text, "zeros")
}

// A chart names the levels of intervals of several levels (rounds differ)
// by their range.
func TestIntervalNoteLevels(t *testing.T) {
	t.Parallel()
	require.True(t, strings.HasPrefix(IntervalNote([]*report.MetricResult{
		{Samples: []float64{1, 2, 3}, Low: 1, High: 3, Level: 0.75},
		{Samples: []float64{1, 2, 3, 4, 5}, Low: 1, High: 5, Level: 0.9375},
	}), "median of 3–5 rounds; whiskers: min–max of the rounds (a 75.0%–93.8% confidence interval"))
}
