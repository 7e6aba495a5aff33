package charts

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// soakChart draws the soak scenarios over time, one colour per scenario,
// in three panels on one time axis: claim p99 (solid) and p50 (dashed) of
// each interval in milliseconds; dead tuples of tasks (solid) and
// concurrency_slots (dashed); the two tables' total size. Every panel is
// on a log scale, so that a flat line and one that grows a thousandfold
// both read; a panel with zeros (dead tuples after a vacuum) on a log
// scale that shows zero too (chartZeroLogScale), its foot labelled 0: a
// zero drawn at the foot of a plain log axis would read as its floor (1).
func soakChart(w scenariofile.Workload, groups [][]*report.ScenarioResult) (*chartFigure, error) {
	var scs []*report.ScenarioResult
	longest := 0.0
	for _, g := range groups {
		for _, s := range g {
			if s.Soak != nil && len(s.Soak.Samples) > 0 {
				scs = append(scs, s)
				longest = max(longest, s.Soak.Samples[len(s.Soak.Samples)-1].Seconds)
			}
		}
	}
	if len(scs) == 0 {
		return nil, nil
	}
	unit, scale := "s", 1.0
	if longest >= 180 {
		unit, scale = "min", 60
	}
	xLabel := fmt.Sprintf("time since the warm-up (%s)", unit)

	latency := chartNew(fmt.Sprintf("%s: claim latency, dead tuples and table size over time\nper sample interval; log scales", w), "", "claim round trip (ms)")
	dead := chartNew("", "", "dead tuples")
	size := chartNew("", xLabel, "size of tasks + slots (MiB)")
	dashes := []vg.Length{vg.Points(5), vg.Points(3)}

	var ranges [3]chartRange
	for i, s := range scs {
		c := chartPalette[i%len(chartPalette)]
		solid := draw.LineStyle{Color: c, Width: vg.Points(1.8)}
		dashed := draw.LineStyle{Color: c, Width: vg.Points(1.4), Dashes: dashes}
		series := func(f func(report.SoakSample) (float64, bool), r *chartRange) plotter.XYs {
			var xys plotter.XYs
			for _, smp := range s.Soak.Samples {
				v, ok := f(smp)
				if !ok {
					continue
				}
				r.add(v)
				xys = append(xys, plotter.XY{X: smp.Seconds / scale, Y: math.Max(v, 0)})
			}
			return xys
		}
		p99 := series(func(x report.SoakSample) (float64, bool) { return x.ClaimP99 * 1e3, x.Claims > 0 }, &ranges[0])
		p50 := series(func(x report.SoakSample) (float64, bool) { return x.ClaimP50 * 1e3, x.Claims > 0 }, &ranges[0])
		deadTasks := series(func(x report.SoakSample) (float64, bool) { return float64(x.Tasks.Dead), true }, &ranges[1])
		deadSlots := series(func(x report.SoakSample) (float64, bool) { return float64(x.Slots.Dead), true }, &ranges[1])
		bytes := series(func(x report.SoakSample) (float64, bool) {
			return float64(x.Tasks.Bytes+x.Slots.Bytes) / (1 << 20), true
		}, &ranges[2])

		for _, l := range []struct {
			p      *plot.Plot
			xys    plotter.XYs
			style  draw.LineStyle
			legend string
		}{
			{latency, p99, solid, s.Name + ": p99"},
			{latency, p50, dashed, s.Name + ": p50"},
			{dead, deadTasks, solid, s.Name + ": tasks"},
			{dead, deadSlots, dashed, s.Name + ": concurrency_slots"},
			{size, bytes, solid, s.Name},
		} {
			if len(l.xys) == 0 {
				continue
			}
			line, err := plotter.NewLine(l.xys)
			if err != nil {
				return nil, err
			}
			line.LineStyle = l.style
			l.p.Add(line)
			if l.legend != "" {
				l.p.Legend.Add(l.legend, line)
			}
		}
	}
	floors := [3]float64{1e-3, 1, 1e-3}
	zeros := false
	for i, p := range []*plot.Plot{latency, dead, size} {
		lo, hi := ranges[i].bounds(floors[i])
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = chartLogThousandsTicks{}
		p.Y.Min, p.Y.Max = lo, hi
		if ranges[i].zero {
			p.Y.Scale = chartZeroLogScale{lowest: lo}
			p.Y.Tick.Marker = chartZeroLogTicks{lowest: lo}
			p.Y.Min = 0
			zeros = true
		}
		p.X.Min, p.X.Max = 0, longest/scale
		p.X.Tick.Marker = chartThousandsTicks{}
		p.Legend.Top, p.Legend.Left = true, true
	}
	if zeros {
		latency.Title.Text += " (zeros drawn at the foot, labelled 0, a decade below the lowest tick)"
	}
	return &chartFigure{plot: latency, width: chartWidth, height: 8 * vg.Inch, below: []*plot.Plot{dead, size}}, nil
}

// chartRange collects the range of a panel's positive values, and
// whether it had zeros.
type chartRange struct {
	lo, hi     float64
	seen, zero bool
}

func (r *chartRange) add(v float64) {
	if v <= 0 {
		r.zero = true
		return
	}
	if !r.seen {
		r.lo, r.hi, r.seen = v, v, true
		return
	}
	r.lo, r.hi = min(r.lo, v), max(r.hi, v)
}

// bounds returns the axis's range on a log scale: whole decades around the
// positive values, at least one decade, never below floor.
func (r *chartRange) bounds(floor float64) (lo, hi float64) {
	if !r.seen {
		return floor, floor * 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(r.lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(r.hi)))
	if hi <= lo {
		hi = lo * 10
	}
	return max(lo, floor), hi
}

// chartZeroLogScale is a log scale that shows zero: it maps y to
// log10(1 + 10·y/lowest), so that from lowest (the axis's lowest decade)
// up values are drawn almost as on a log scale, and 0 a decade below
// lowest, at the foot of the axis, where no positive value of the panel
// is. Negative values are drawn as 0.
type chartZeroLogScale struct {
	lowest float64
}

func (s chartZeroLogScale) Normalize(lo, hi, y float64) float64 {
	f := func(v float64) float64 { return math.Log10(1 + 10*math.Max(v, 0)/s.lowest) }
	return (f(y) - f(lo)) / (f(hi) - f(lo))
}

// chartZeroLogTicks are the ticks of a chartZeroLogScale axis: 0, then
// chartLogThousandsTicks from lowest up.
type chartZeroLogTicks struct {
	lowest float64
}

func (t chartZeroLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	return append(ticks, chartLogThousandsTicks{}.Ticks(max(lo, t.lowest), hi)...)
}

// chartLogThousandsTicks are chartLogTicks labelled as the reports write
// numbers: 100,000 rather than 1e+05.
type chartLogThousandsTicks struct{}

func (chartLogThousandsTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := chartLogTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" && ticks[i].Value >= 1000 {
			ticks[i].Label = textfmt.ThousandsFloat(ticks[i].Value)
		}
	}
	return ticks
}
