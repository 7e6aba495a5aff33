// Package charts draws a benchmark run's charts (Write): throughput,
// ratios, latencies and clients of the drain and counters workloads, and
// the soak workload's timeline, each as a PNG and an SVG.
package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// Write draws a run's charts into dir, each as a PNG and an SVG of
// the same base name, and returns the names of the files written,
// relative to dir, in the order the report should show them. For each
// workload (drain, counters) with the metrics to draw:
//
//   - throughput-<workload>: each scenario's median throughput, with the
//     interval of the median as whiskers, scenarios grouped with the
//     reference they are measured against;
//   - ratio-<workload>: each scenario's median throughput ratio to its
//     reference, with its interval, its throughput_ratio thresholds and
//     the line of parity;
//   - ideal-share-<workload>: the same of ideal_share (the binding
//     scenario's share of its ideal throughput) against the line of the
//     ideal, 100%;
//   - latency-<workload>: each scenario's round trips (claim and complete,
//     or insert): p50 to p99 as a bar, the whole range of the latency
//     histogram as whiskers, on a log scale;
//   - clients-<workload>: throughput against the number of clients, one
//     line per group of scenarios measured against each other that differ
//     in clients (counters: the hot-scope sweeps of each strategy);
//   - timeline-<workload>: the soak scenarios over time, in three panels
//     sharing the time axis: claim p50 and p99 of each interval, dead
//     tuples of tasks and concurrency_slots, and their total size.
//
// A run with nothing to draw writes nothing.
func Write(dir string, r *report.SuiteResult) ([]string, error) {
	var files []string
	save := func(base string, c *chartFigure) error {
		if c == nil {
			return nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the charts' directory: %w", err)
		}
		for _, format := range []string{"png", "svg"} {
			name := base + "." + format
			var cw vg.CanvasWriterTo = vgsvg.New(c.width, c.height)
			if format == "png" {
				cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(c.width, c.height), vgimg.UseDPI(chartDPI))}
			}
			dc := draw.New(cw)
			dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y}})
			margin := vg.Points(12)
			c.draw(draw.Crop(dc, margin, -margin, margin/2, -margin/2))
			var b bytes.Buffer
			if _, err := cw.WriteTo(&b); err != nil {
				return fmt.Errorf("drawing chart %s: %w", name, err)
			}
			out := b.Bytes()
			if format == "svg" {
				// The SVG names the font the text was measured with;
				// viewers without it should take one of the same
				// metrics rather than their default serif.
				out = bytes.ReplaceAll(out, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
			}
			if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
				return fmt.Errorf("writing chart %s: %w", name, err)
			}
			files = append(files, name)
		}
		return nil
	}
	for _, w := range chartWorkloads(r) {
		var scs []*report.ScenarioResult
		for i := range r.Scenarios {
			if r.Scenarios[i].Workload == w {
				scs = append(scs, &r.Scenarios[i])
			}
		}
		groups := chartGroups(scs)
		for _, c := range []struct {
			base string
			draw func(scenariofile.Workload, [][]*report.ScenarioResult) (*chartFigure, error)
		}{
			{"throughput", throughputChart},
			{"ratio", ratioChart},
			{"ideal-share", idealShareChart},
			{"latency", latencyChart},
			{"clients", clientsChart},
			{"timeline", soakChart},
		} {
			fig, err := c.draw(w, groups)
			if err != nil {
				return files, fmt.Errorf("drawing the %s chart of %s: %w", c.base, w, err)
			}
			if err := save(c.base+"-"+string(w), fig); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

// chartDPI is the PNGs' resolution: twice the usual 96, sharp on
// high-density screens.
const chartDPI = 192

// chartFigure is a plot and the size to draw it at; below are plots drawn
// under it, in order, their data areas aligned with its own.
type chartFigure struct {
	plot          *plot.Plot
	width, height vg.Length
	below         []*plot.Plot
}

// draw draws the figure's plots on dc.
func (c *chartFigure) draw(dc draw.Canvas) {
	if len(c.below) == 0 {
		c.plot.Draw(dc)
		return
	}
	plots := [][]*plot.Plot{{c.plot}}
	for _, p := range c.below {
		plots = append(plots, []*plot.Plot{p})
	}
	canvases := plot.Align(plots, draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(14)}, dc)
	for i, row := range plots {
		row[0].Draw(canvases[i][0])
	}
}

// chartWorkloads returns the run's workloads in order of appearance.
func chartWorkloads(r *report.SuiteResult) []scenariofile.Workload {
	var ws []scenariofile.Workload
	for _, s := range r.Scenarios {
		if !slices.Contains(ws, s.Workload) {
			ws = append(ws, s.Workload)
		}
	}
	return ws
}

// chartGroups groups scenarios with the reference they are measured
// against (following Against to a scenario measured against nothing, or
// against one not among scs): each group is its reference, then its
// members, in order of appearance.
func chartGroups(scs []*report.ScenarioResult) [][]*report.ScenarioResult {
	byName := map[string]*report.ScenarioResult{}
	for _, s := range scs {
		byName[s.Name] = s
	}
	root := func(s *report.ScenarioResult) string {
		var seen []string
		for s.Against != "" && byName[s.Against] != nil {
			if slices.Contains(seen, s.Name) {
				// A cycle (the scenario files refuse them): its
				// alphabetically first name is its root.
				return slices.Min(seen)
			}
			seen = append(seen, s.Name)
			s = byName[s.Against]
		}
		return s.Name
	}
	var order []string
	members := map[string][]*report.ScenarioResult{}
	for _, s := range scs {
		r := root(s)
		if _, ok := members[r]; !ok {
			order = append(order, r)
		}
		members[r] = append(members[r], s)
	}
	groups := make([][]*report.ScenarioResult, 0, len(order))
	for _, r := range order {
		g := members[r]
		// The reference first.
		slices.SortStableFunc(g, func(a, b *report.ScenarioResult) int {
			return chartBool(b.Name == r) - chartBool(a.Name == r)
		})
		groups = append(groups, g)
	}
	return groups
}

func chartBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Okabe–Ito colours: distinguishable with every common colour-vision
// deficiency.
var (
	chartBlue       = color.RGBA{0x00, 0x72, 0xB2, 0xFF}
	chartOrange     = color.RGBA{0xE6, 0x9F, 0x00, 0xFF}
	chartGreen      = color.RGBA{0x00, 0x9E, 0x73, 0xFF}
	chartVermillion = color.RGBA{0xD5, 0x5E, 0x00, 0xFF}
	chartPink       = color.RGBA{0xCC, 0x79, 0xA7, 0xFF}
	chartSky        = color.RGBA{0x56, 0xB4, 0xE9, 0xFF}
	chartGrey       = color.RGBA{0x70, 0x70, 0x70, 0xFF}
	chartPalette    = []color.Color{chartBlue, chartOrange, chartGreen, chartPink, chartSky, chartVermillion, chartGrey}
)

var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// chartNew returns a plot in the charts' style: sans-serif text, a title
// (its second line, if any, smaller, as a subtitle), axis labels, light
// vertical grid lines.
func chartNew(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFont, 11)
		a.Tick.Label.Font = font.From(chartFont, 10)
	}
	p.Legend.TextStyle.Font = font.From(chartFont, 10)
	p.Legend.Padding = vg.Points(2)
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	grid.Vertical.Color = color.Gray{Y: 0xE0}
	p.Add(grid)
	return p
}

// chartRowsHeight is the height of a chart with rows horizontal rows.
func chartRowsHeight(rows float64) vg.Length {
	return vg.Points(130) + vg.Points(26)*vg.Length(rows)
}

const chartWidth = 9 * vg.Inch

// chartRow is one row of a horizontal chart: its label and position.
type chartRow struct {
	label string
	y     float64
}

// chartLayout places rows from the top, groups separated by a gap, and
// sets the Y axis's ticks to their labels.
func chartLayout(p *plot.Plot, groups [][]string) [][]chartRow {
	n := 0.0
	for _, g := range groups {
		n += float64(len(g))
	}
	gap := 0.6
	n += gap * float64(max(len(groups)-1, 0))
	out := make([][]chartRow, len(groups))
	var ticks []plot.Tick
	y := n - 1
	for i, g := range groups {
		for _, label := range g {
			out[i] = append(out[i], chartRow{label, y})
			ticks = append(ticks, plot.Tick{Value: y, Label: label})
			y--
		}
		y -= gap
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = 0
	p.Y.Width = 0
	p.Y.Min, p.Y.Max = -0.7, n-0.3
	return out
}

// chartRowCount is the height in rows chartLayout gives groups.
func chartRowCount(groups [][]string) float64 {
	n := 0.0
	for _, g := range groups {
		n += float64(len(g)) + 0.6
	}
	return n
}

// chartInterval is the whisker of a per-round metric: its interval when
// it has one, else the range of its samples.
func chartInterval(m *report.MetricResult) (lo, hi float64) {
	if m.Low != 0 || m.High != 0 {
		return m.Low, m.High
	}
	if len(m.Samples) == 0 {
		return m.Value, m.Value
	}
	return slices.Min(m.Samples), slices.Max(m.Samples)
}

// chartCenter is a per-round metric's median (its Value, or the median of
// its samples when it has none).
func chartCenter(m *report.MetricResult) float64 {
	if m.Value == 0 && len(m.Samples) > 0 {
		return stats.Median(m.Samples)
	}
	return m.Value
}

// IntervalNote describes the centres and whiskers of per-round metrics, as
// the charts' titles do, naming the intervals' level as the reports do
// (stats.FormatLevel).
func IntervalNote(ms []*report.MetricResult) string {
	fewest, most := math.MaxInt, 0
	var levels []float64
	minMax := true
	for _, m := range ms {
		fewest, most = min(fewest, len(m.Samples)), max(most, len(m.Samples))
		levels = append(levels, m.Level)
		if lo, hi := chartInterval(m); len(m.Samples) > 0 && (lo != slices.Min(m.Samples) || hi != slices.Max(m.Samples)) {
			minMax = false
		}
	}
	rounds := textfmt.Plural(most, "round")
	if fewest != most {
		rounds = fmt.Sprintf("%d–%d rounds", fewest, most)
	}
	level := stats.FormatLevels(levels)
	switch {
	case most <= 1:
		return "one round"
	case level == "":
		return fmt.Sprintf("median of %s; whiskers: min–max of the rounds", rounds)
	case minMax:
		return fmt.Sprintf("median of %s; whiskers: min–max of the rounds (a %s confidence interval of the median)", rounds, level)
	}
	return fmt.Sprintf("median of %s; whiskers: %s confidence interval of the median", rounds, level)
}

// throughputChart draws each scenario's median throughput (not the soak
// workload's: its throughput is the rate it was given, and its chart is
// the timeline).
func throughputChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	if w == scenariofile.WorkloadSoak {
		return nil, nil
	}
	type entry struct {
		m         *report.MetricResult
		reference bool
	}
	var labels [][]string
	var entries [][]entry
	var all []*report.MetricResult
	var unit scenariofile.Unit
	for _, g := range groups {
		var ls []string
		var es []entry
		for _, s := range g {
			m := s.Metric("throughput")
			if m == nil {
				continue
			}
			unit = m.Unit
			ref := len(g) > 1 && s == g[0]
			label := s.Name
			if ref {
				label += " (reference)"
			}
			ls = append(ls, label)
			es = append(es, entry{m, ref})
			all = append(all, m)
		}
		if len(es) > 0 {
			labels = append(labels, ls)
			entries = append(entries, es)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	p := chartNew(fmt.Sprintf("%s: throughput per scenario\n%s", w, IntervalNote(all)), fmt.Sprintf("throughput (%s)", unit), "")
	rows := chartLayout(p, labels)
	bars := &chartBars{}
	whiskers := &chartSegments{style: draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}, caps: 0.18}
	var text plotter.XYLabels
	hi := 0.0
	for i, es := range entries {
		c := chartPalette[i%len(chartPalette)]
		for j, e := range es {
			y := rows[i][j].y
			v := chartCenter(e.m)
			lo, h := chartInterval(e.m)
			bars.bars = append(bars.bars, chartBar{y: y, value: v, color: c, reference: e.reference})
			if h > lo {
				whiskers.segs = append(whiskers.segs, [4]float64{lo, y, h, y})
			}
			text.XYs = append(text.XYs, plotter.XY{X: max(h, v), Y: y})
			text.Labels = append(text.Labels, textfmt.ThousandsFloat(v))
			hi = max(hi, h, v)
		}
	}
	p.Add(bars, whiskers)
	if err := chartAddLabels(p, text); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = 0, hi*1.15
	p.X.Tick.Marker = chartThousandsTicks{}
	return &chartFigure{plot: p, width: chartWidth, height: chartRowsHeight(chartRowCount(labels))}, nil
}

// chartAddLabels adds value labels right of their points.
func chartAddLabels(p *plot.Plot, text plotter.XYLabels) error {
	if len(text.XYs) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(text)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(chartFont, 9)
		l.TextStyle[i].YAlign = draw.YCenter
	}
	l.Offset = vg.Point{X: vg.Points(6)}
	p.Add(l)
	return nil
}

// chartAddLabelsAbove adds value labels centred above their points, a
// little higher than the threshold bars of their row reach: given at
// y + chartBoundHalf, they clear every bar a threshold draws.
func chartAddLabelsAbove(p *plot.Plot, text plotter.XYLabels) error {
	l, err := plotter.NewLabels(text)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(chartFont, 9)
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YBottom
	}
	l.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(l)
	return nil
}

// chartBoundHalf is half the height of a threshold's bar, in rows: above
// the whiskers' caps (0.18), below the row's value label.
const chartBoundHalf = 0.25

// chartOne describes a chart of a per-round metric read against 1:
// throughput_ratio against parity, ideal_share against the ideal.
type chartOne struct {
	metric string
	// title follows "<workload>: "; xLabel is the value axis's label.
	title, xLabel string
	// row labels a scenario's row.
	row func(*report.ScenarioResult) string
	// percent labels values and ticks in percent (82.7%), else as
	// ratios (0.83×).
	percent bool
	// one is the legend of the line at 1.
	one string
}

// ratioChart draws each scenario's median throughput ratio to its
// reference, with its thresholds and the line of parity.
func ratioChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	return oneChart(w, groups, chartOne{
		metric: "throughput_ratio",
		title:  "throughput relative to the reference, round by round",
		xLabel: "throughput ÷ the reference's in the same round (×)",
		row:    func(s *report.ScenarioResult) string { return fmt.Sprintf("%s vs %s", s.Name, s.Against) },
		one:    "parity (1×)",
	})
}

// idealShareChart draws each scenario's median share of its ideal
// throughput (limit ÷ handler delay), with its thresholds and the line of
// the ideal.
func idealShareChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	return oneChart(w, groups, chartOne{
		metric:  "ideal_share",
		title:   "throughput as a share of the ideal, round by round",
		xLabel:  "throughput ÷ the ideal (limit ÷ handler delay)",
		row:     func(s *report.ScenarioResult) string { return s.Name },
		percent: true,
		one:     "ideal (100%)",
	})
}

// oneChart draws each scenario's median of c.metric with its interval,
// the metric's thresholds, and the line at 1, points coloured by the
// thresholds' outcome.
func oneChart(w scenariofile.Workload, groups [][]*report.ScenarioResult, c chartOne) (*chartFigure, error) {
	type entry struct {
		s *report.ScenarioResult
		m *report.MetricResult
	}
	var labels [][]string
	var entries [][]entry
	var all []*report.MetricResult
	for _, g := range groups {
		var ls []string
		var es []entry
		for _, s := range g {
			if m := s.Metric(c.metric); m != nil {
				ls = append(ls, c.row(s))
				es = append(es, entry{s, m})
				all = append(all, m)
			}
		}
		if len(es) > 0 {
			labels = append(labels, ls)
			entries = append(entries, es)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	p := chartNew(fmt.Sprintf("%s: %s\n%s", w, c.title, IntervalNote(all)), c.xLabel, "")
	rows := chartLayout(p, labels)

	statusColor := map[report.Status]color.Color{report.StatusMet: chartGreen, report.StatusMissed: chartVermillion, report.StatusInconclusive: chartOrange, "": chartBlue}
	statusName := map[report.Status]string{report.StatusMet: "threshold met", report.StatusMissed: "threshold missed", report.StatusInconclusive: "inconclusive", "": "no threshold"}
	whiskers := &chartSegments{style: draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}, caps: 0.18}
	bounds := &chartSegments{style: draw.LineStyle{Color: chartVermillion, Width: vg.Points(2.5)}}
	var pts plotter.XYs
	var colors []color.Color
	var above plotter.XYLabels
	statuses := map[report.Status]bool{}
	lo, hi := 1.0, 1.0
	for i, es := range entries {
		for j, e := range es {
			y := rows[i][j].y
			v := chartCenter(e.m)
			l, h := chartInterval(e.m)
			if h > l {
				whiskers.segs = append(whiskers.segs, [4]float64{l, y, h, y})
			}
			status := report.Status("")
			for _, t := range e.s.Thresholds {
				if t.Metric != c.metric {
					continue
				}
				status = chartWorse(status, t.Status)
				for _, b := range []*float64{t.Min, t.Max} {
					if b != nil {
						bounds.segs = append(bounds.segs, [4]float64{*b, y - chartBoundHalf, *b, y + chartBoundHalf})
						lo, hi = min(lo, *b), max(hi, *b)
					}
				}
			}
			statuses[status] = true
			pts = append(pts, plotter.XY{X: v, Y: y})
			colors = append(colors, statusColor[status])
			above.XYs = append(above.XYs, plotter.XY{X: v, Y: y + chartBoundHalf})
			label := fmt.Sprintf("%.2f×", v)
			if c.percent {
				label = fmt.Sprintf("%.1f%%", v*100)
			}
			above.Labels = append(above.Labels, label)
			lo, hi = min(lo, l, v), max(hi, h, v)
		}
	}
	one := &chartSegments{style: draw.LineStyle{Color: chartGrey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
	one.segs = append(one.segs, [4]float64{1, p.Y.Min, 1, p.Y.Max})
	points, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	points.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: colors[i], Radius: vg.Points(5), Shape: draw.CircleGlyph{}}
	}
	p.Add(one, whiskers, bounds, points)
	if err := chartAddLabelsAbove(p, above); err != nil {
		return nil, err
	}
	for _, s := range []report.Status{report.StatusMet, report.StatusInconclusive, report.StatusMissed, ""} {
		if statuses[s] {
			p.Legend.Add(statusName[s], chartGlyph{draw.GlyphStyle{Color: statusColor[s], Radius: vg.Points(5), Shape: draw.CircleGlyph{}}})
		}
	}
	if len(bounds.segs) > 0 {
		p.Legend.Add("threshold", bounds)
	}
	p.Legend.Add(c.one, one)
	span := hi - lo
	p.X.Min, p.X.Max = max(0, lo-0.08*span-0.02), hi+0.35*span+0.05
	p.X.Tick.Marker = chartOneTicks{percent: c.percent}
	p.Legend.Top = true
	return &chartFigure{plot: p, width: chartWidth, height: chartRowsHeight(chartRowCount(labels) + 1)}, nil
}

// chartWorse returns the worse of two threshold outcomes ("" is none).
func chartWorse(a, b report.Status) report.Status {
	rank := map[report.Status]int{"": 0, report.StatusMet: 1, report.StatusInconclusive: 2, report.StatusMissed: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// chartLatencyOps returns the round trips a scenario's metrics measure:
// the prefixes of <op>_p50 and <op>_p99 duration metrics (claim,
// complete; insert), in metric order.
func chartLatencyOps(s *report.ScenarioResult) []string {
	var ops []string
	for _, m := range s.Metrics {
		op, ok := strings.CutSuffix(m.Name, "_p50")
		if ok && m.Unit == scenariofile.UnitSeconds && s.Metric(op+"_p99") != nil && !slices.Contains(ops, op) {
			ops = append(ops, op)
		}
	}
	return ops
}

// latencyChart draws each scenario's round-trip latencies: p50 to p99 as
// a thick bar, the whole range of the pooled samples (the histogram's
// first and last buckets) as whiskers.
func latencyChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	var ops []string
	var labels [][]string
	var scs [][]*report.ScenarioResult
	for _, g := range groups {
		var ls []string
		var ss []*report.ScenarioResult
		for _, s := range g {
			o := chartLatencyOps(s)
			if len(o) == 0 {
				continue
			}
			for _, op := range o {
				if !slices.Contains(ops, op) {
					ops = append(ops, op)
				}
			}
			ls = append(ls, s.Name)
			ss = append(ss, s)
		}
		if len(ss) > 0 {
			labels = append(labels, ls)
			scs = append(scs, ss)
		}
	}
	if len(ops) == 0 {
		return nil, nil
	}
	// Every value, to choose the display unit and the axis range.
	lo, hi := math.Inf(1), 0.0
	for _, ss := range scs {
		for _, s := range ss {
			for _, op := range ops {
				for _, name := range []string{op + "_p50", op + "_p99"} {
					if m := s.Metric(name); m != nil && m.Value > 0 {
						lo, hi = min(lo, m.Value), max(hi, m.Value)
						if mn, mx, ok := chartHistogramRange(m.Histogram); ok {
							lo, hi = min(lo, mn), max(hi, mx)
						}
					}
				}
			}
		}
	}
	if hi == 0 {
		return nil, nil
	}
	scale, unit := 1e3, "ms"
	if hi < 1e-3 {
		scale, unit = 1e6, "µs"
	}

	what := "round trip"
	if len(ops) == 1 {
		what = ops[0] + " round trip"
	}
	p := chartNew(fmt.Sprintf("%s: round-trip latency per scenario\nbar: p50 to p99 of all rounds' round trips (● p50, ▲ p99); whiskers: fastest to slowest", w),
		fmt.Sprintf("%s (%s, log scale)", what, unit), "")
	rows := chartLayout(p, labels)
	if len(ops) > 1 {
		p.Y.Max++ // room for the legend above the first row
	}
	colors := []color.Color{chartBlue, chartOrange, chartGreen, chartPink}
	offset := func(k int) float64 {
		if len(ops) == 1 {
			return 0
		}
		return 0.42 - 0.84*float64(k)/float64(len(ops)-1)
	}
	for k, op := range ops {
		c := colors[k%len(colors)]
		box := &chartSegments{style: draw.LineStyle{Color: c, Width: vg.Points(7)}}
		whisk := &chartSegments{style: draw.LineStyle{Color: c, Width: vg.Points(1)}, caps: 0.1}
		var p50s, p99s plotter.XYs
		for i, ss := range scs {
			for j, s := range ss {
				y := rows[i][j].y + offset(k)*0.6
				m50, m99 := s.Metric(op+"_p50"), s.Metric(op+"_p99")
				if m50 == nil || m99 == nil || m50.Value <= 0 || m99.Value <= 0 {
					continue
				}
				a, b := m50.Value*scale, m99.Value*scale
				box.segs = append(box.segs, [4]float64{a, y, b, y})
				p50s = append(p50s, plotter.XY{X: a, Y: y})
				p99s = append(p99s, plotter.XY{X: b, Y: y})
				h := m99.Histogram
				if h == nil {
					h = m50.Histogram
				}
				if mn, mx, ok := chartHistogramRange(h); ok {
					whisk.segs = append(whisk.segs, [4]float64{mn * scale, y, mx * scale, y})
				}
			}
		}
		if len(p50s) == 0 {
			continue
		}
		s50, err := plotter.NewScatter(p50s)
		if err != nil {
			return nil, err
		}
		s50.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		s99, err := plotter.NewScatter(p99s)
		if err != nil {
			return nil, err
		}
		s99.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.TriangleGlyph{}}
		p.Add(whisk, box, s50, s99)
		if len(ops) > 1 {
			p.Legend.Add(op+" round trip", box)
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo*scale/1.5, hi*scale*1.5
	p.X.Tick.Marker = chartLogTicks{}
	p.Legend.Top = true
	return &chartFigure{plot: p, width: chartWidth, height: chartRowsHeight(chartRowCount(labels) + 1)}, nil
}

// chartHistogramRange returns the smallest and largest sample a latency
// histogram holds, as far as its buckets tell: the first non-empty
// bucket's bound and the last bound (the maximum).
func chartHistogramRange(h *report.Histogram) (lo, hi float64, ok bool) {
	if h == nil || len(h.Bounds) == 0 || len(h.Bounds) != len(h.Counts) {
		return 0, 0, false
	}
	for i, c := range h.Counts {
		if c > 0 && h.Bounds[i] > 0 {
			return h.Bounds[i], h.Bounds[len(h.Bounds)-1], true
		}
	}
	return 0, 0, false
}

// clientsChart draws throughput against clients: one line per group of
// scenarios measured against each other whose members all run at
// different client counts (a sweep); groups that do not vary clients are
// left to the throughput chart.
func clientsChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	type series struct {
		label string
		ss    []*report.ScenarioResult
	}
	var sweeps []series
	var unit scenariofile.Unit
	var all []*report.MetricResult
	var xs []float64
	for _, g := range groups {
		clients := map[int]bool{}
		var ss []*report.ScenarioResult
		for _, s := range g {
			m := s.Metric("throughput")
			if m == nil || s.Size.Clients <= 0 || clients[s.Size.Clients] {
				ss = nil
				break
			}
			clients[s.Size.Clients] = true
			ss = append(ss, s)
		}
		if len(ss) < 2 {
			continue
		}
		slices.SortFunc(ss, func(a, b *report.ScenarioResult) int { return a.Size.Clients - b.Size.Clients })
		names := make([]string, len(ss))
		for i, s := range ss {
			names[i] = s.Name
			m := s.Metric("throughput")
			unit = m.Unit
			all = append(all, m)
			if !slices.Contains(xs, float64(s.Size.Clients)) {
				xs = append(xs, float64(s.Size.Clients))
			}
		}
		sweeps = append(sweeps, series{chartCommonName(names), ss})
	}
	if len(sweeps) == 0 {
		return nil, nil
	}
	p := chartNew(fmt.Sprintf("%s: throughput against concurrent clients\n%s", w, IntervalNote(all)),
		"concurrent clients (log scale)", fmt.Sprintf("throughput (%s)", unit))
	p.Add(&plotter.Grid{Horizontal: draw.LineStyle{Color: color.Gray{Y: 0xE0}, Width: vg.Points(0.5)}})
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}}
	hi := 0.0
	for i, sw := range sweeps {
		c := chartPalette[i%len(chartPalette)]
		var pts plotter.XYs
		whiskers := &chartSegments{style: draw.LineStyle{Color: c, Width: vg.Points(1.2)}}
		for _, s := range sw.ss {
			m := s.Metric("throughput")
			x, v := float64(s.Size.Clients), chartCenter(m)
			lo, h := chartInterval(m)
			pts = append(pts, plotter.XY{X: x, Y: v})
			if h > lo {
				// A vertical whisker: its caps are drawn as short
				// horizontal segments a few percent of x wide.
				whiskers.segs = append(whiskers.segs, [4]float64{x, lo, x, h}, [4]float64{x / 1.04, lo, x * 1.04, lo}, [4]float64{x / 1.04, h, x * 1.04, h})
			}
			hi = max(hi, h, v)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(2)}
		points.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: glyphs[i%len(glyphs)]}
		p.Add(whiskers, line, points)
		p.Legend.Add(sw.label, line, points)
	}
	slices.Sort(xs)
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = xs[0]/1.6, xs[len(xs)-1]*1.6
	p.Y.Min, p.Y.Max = 0, hi*1.3
	p.Y.Tick.Marker = chartThousandsTicks{}
	p.Legend.Top = true
	return &chartFigure{plot: p, width: chartWidth, height: 5 * vg.Inch}, nil
}

// chartCommonName labels a sweep: the names' longest common prefix
// without trailing separators ("hot-counter_table" for
// hot-counter_table-8 and hot-counter_table-64), else the names joined.
func chartCommonName(names []string) string {
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	prefix = strings.TrimRight(prefix, "-_/. ")
	if prefix == "" {
		return strings.Join(names, ", ")
	}
	return prefix
}

// chartBar is one horizontal bar.
type chartBar struct {
	y, value float64
	color    color.Color
	// reference bars are drawn hatched-lighter with an outline.
	reference bool
}

// chartBars draws horizontal bars from 0.
type chartBars struct {
	bars []chartBar
}

const chartBarHeight = 0.62 // in rows

func (b *chartBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, bar := range b.bars {
		x0, x1 := trX(0), trX(bar.value)
		y0, y1 := trY(bar.y-chartBarHeight/2), trY(bar.y+chartBarHeight/2)
		rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		fill := bar.color
		if bar.reference {
			fill = chartLighter(bar.color)
		}
		c.FillPolygon(fill, c.ClipPolygonXY(rect))
		if bar.reference {
			c.StrokeLines(draw.LineStyle{Color: bar.color, Width: vg.Points(1.5)}, c.ClipLinesXY(append(rect, rect[0]))...)
		}
	}
}

func (b *chartBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = 0, math.Inf(1)
	xmax, ymax = 0, math.Inf(-1)
	for _, bar := range b.bars {
		xmin, xmax = min(xmin, bar.value), max(xmax, bar.value)
		ymin, ymax = min(ymin, bar.y-0.5), max(ymax, bar.y+0.5)
	}
	return xmin, xmax, ymin, ymax
}

// chartLighter mixes c with white.
func chartLighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8)/3 + 255*2/3) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xFF}
}

// chartSegments draws line segments (x1, y1, x2, y2) in data
// coordinates; caps, when set, adds vertical caps of that height (in
// rows) at both ends of horizontal segments.
type chartSegments struct {
	segs  [][4]float64
	style draw.LineStyle
	caps  float64
}

func (s *chartSegments) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, sg := range s.segs {
		line := []vg.Point{{X: trX(sg[0]), Y: trY(sg[1])}, {X: trX(sg[2]), Y: trY(sg[3])}}
		c.StrokeLines(s.style, c.ClipLinesXY(line)...)
		if s.caps > 0 && sg[1] == sg[3] {
			for _, x := range []float64{sg[0], sg[2]} {
				cp := []vg.Point{{X: trX(x), Y: trY(sg[1] - s.caps)}, {X: trX(x), Y: trY(sg[1] + s.caps)}}
				c.StrokeLines(s.style, c.ClipLinesXY(cp)...)
			}
		}
	}
}

func (s *chartSegments) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, sg := range s.segs {
		xmin, xmax = min(xmin, sg[0], sg[2]), max(xmax, sg[0], sg[2])
		ymin, ymax = min(ymin, sg[1], sg[3]), max(ymax, sg[1], sg[3])
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail draws the segments' style in a legend.
func (s *chartSegments) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(s.style, c.Min.X, y, c.Max.X, y)
}

// chartGlyph is a legend entry drawn as one glyph.
type chartGlyph struct{ style draw.GlyphStyle }

func (g chartGlyph) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.style, c.Center()) }

// chartThousandsTicks are the default ticks labelled as the reports write
// numbers: 20,000 rather than 20000, 0 rather than 0.00.
type chartThousandsTicks struct{}

func (chartThousandsTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		if v := ticks[i].Value; math.Abs(v) >= 1000 || v == math.Trunc(v) {
			ticks[i].Label = textfmt.ThousandsFloat(v)
		} else {
			ticks[i].Label = strconv.FormatFloat(v, 'g', 4, 64)
		}
	}
	return ticks
}

// chartOneTicks are the ticks of an axis read against 1 (a ratio, a
// share of an ideal): multiples of 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25,
// 0.5 or 1, all of which divide 1, or of a larger step with 1 added, so
// that 1, the line every reader compares against, always has its tick,
// label and grid line when the axis spans it. At most 6 labelled ticks
// (7 with an added 1), a minor one between two labelled ones.
type chartOneTicks struct {
	// percent labels ticks in percent (100%), else as numbers (1).
	percent bool
}

func (t chartOneTicks) Ticks(lo, hi float64) []plot.Tick {
	// labelled counts the multiples of step in [lo, hi].
	labelled := func(step float64) float64 {
		return math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
	}
	steps := []float64{0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1}
	for e := 0.0; labelled(steps[len(steps)-1]) > 6; e++ {
		steps = append(steps, 2*math.Pow(10, e), 5*math.Pow(10, e), 10*math.Pow(10, e))
	}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if labelled(s) <= 6 {
			step = s
			break
		}
	}
	label := func(v float64) string {
		if t.percent {
			return strconv.FormatFloat(v*100, 'g', 4, 64) + "%"
		}
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	var ticks []plot.Tick
	one := lo > 1 || hi < 1 // 1 is off the axis, or has its tick
	for k := math.Ceil(lo/step*2 - 1e-9); k*step/2 <= hi+1e-9; k++ {
		v := math.Round(k*step/2*1e9) / 1e9 // 0.3, not 0.30000000000000004
		tick := plot.Tick{Value: v}
		switch {
		case v == 1:
			tick.Label, one = label(v), true
		case math.Mod(k, 2) == 0 && math.Abs(v-1) >= step/4:
			tick.Label = label(v)
		}
		ticks = append(ticks, tick)
	}
	if !one {
		ticks = append(ticks, plot.Tick{Value: 1, Label: label(1)})
	}
	return ticks
}

// chartLogTicks label 1, 2 and 5 times the powers of ten when the range
// spans at most two decades, the powers of ten only beyond.
type chartLogTicks struct{}

func (chartLogTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	wide := hi/lo > 100
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
