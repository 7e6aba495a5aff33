package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// minQuantileSamples is how many pooled samples a percentile metric needs
// before a threshold on it is judged: with fewer, the tail is a guess.
var minQuantileSamples = map[string]int{"_p50": 2, "_p99": 100}

// quantileSamplesNeeded returns how many samples a metric needs before it
// is judged, and its percentile ("p99"): metrics named <op>_p99 or
// <op>_p99_<what> (claim_p99_last, claim_p99_growth) are percentiles.
func quantileSamplesNeeded(metric string) (need int, pct string) {
	for suffix, n := range minQuantileSamples {
		if strings.HasSuffix(metric, suffix) || strings.Contains(metric, suffix+"_") {
			return n, strings.TrimPrefix(suffix, "_")
		}
	}
	return 0, ""
}

// JudgeAll judges every threshold of sc against its result.
func JudgeAll(sc scenariofile.Scenario, r *ScenarioResult) []ThresholdResult {
	out := make([]ThresholdResult, 0, len(sc.Thresholds))
	for _, t := range sc.Thresholds {
		out = append(out, judge(sc.Workload, t, r.Metric(t.Metric)))
	}
	return out
}

// judge decides one threshold:
//   - a per-round metric with an interval (2 rounds or more) is MET when
//     the whole interval is on the right side of the bound, MISSED when the
//     whole interval is on the wrong side, and INCONCLUSIVE when the
//     interval straddles the bound: the run was too noisy to decide;
//   - a percentile needs enough pooled samples (100 for a p99), else it is
//     INCONCLUSIVE;
//   - anything else (one round, a count, a plan's rows) compares its value.
func judge(w scenariofile.Workload, t scenariofile.Threshold, m *MetricResult) ThresholdResult {
	tr := ThresholdResult{Metric: t.Metric, Min: t.Min, Max: t.Max, Where: where(t)}
	if m == nil {
		tr.Status = StatusInconclusive
		tr.Reason = "not measured in this run"
		return tr
	}
	tr.Value, tr.N = m.Value, m.N
	if need, pct := quantileSamplesNeeded(t.Metric); m.N < need {
		tr.Status = StatusInconclusive
		tr.Reason = fmt.Sprintf("%d samples: a %s needs at least %d", m.N, pct, need)
		return tr
	}
	low, high := m.Value, m.Value
	if m.Level > 0 {
		low, high = m.Low, m.High
		tr.Low, tr.High = low, high
	}
	met, missed := true, false
	var reasons []string
	if t.Min != nil {
		if low < *t.Min {
			met = false
		}
		if high < *t.Min {
			missed = true
		}
	}
	if t.Max != nil {
		if high > *t.Max {
			met = false
		}
		if low > *t.Max {
			missed = true
		}
	}
	switch {
	case met:
		tr.Status = StatusMet
	case missed:
		tr.Status = StatusMissed
	default:
		tr.Status = StatusInconclusive
		reasons = append(reasons, fmt.Sprintf("the %s interval %s – %s straddles the bound", stats.FormatLevel(m.Level),
			FormatValue(m.Unit, low), FormatValue(m.Unit, high)))
	}
	if m.Level == 0 && m.N == 1 && isPerRound(w, t.Metric) {
		reasons = append(reasons, "one round: no interval")
	}
	tr.Reason = strings.Join(reasons, "; ")
	return tr
}

func isPerRound(w scenariofile.Workload, metric string) bool {
	m, ok := scenariofile.LookupMetric(w, metric)
	return ok && m.PerRound
}

func where(t scenariofile.Threshold) string {
	if t.Range.Filename == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", t.Range.Filename, t.Range.Start.Line, t.Range.Start.Column)
}

// Verdict is the worst outcome of all thresholds: MISSED, else
// INCONCLUSIVE, else MET.
func Verdict(scs []ScenarioResult) Status {
	v := StatusMet
	for _, s := range scs {
		for _, t := range s.Thresholds {
			switch t.Status {
			case StatusMissed:
				return StatusMissed
			case StatusInconclusive:
				v = StatusInconclusive
			}
		}
	}
	return v
}

// FormatValue renders a value of a metric in unit u, as reports show it.
func FormatValue(u scenariofile.Unit, v float64) string {
	switch u {
	case scenariofile.UnitSeconds:
		switch {
		case v >= 1:
			return fmt.Sprintf("%.2f s", v)
		case v >= 1e-3:
			return fmt.Sprintf("%.2f ms", v*1e3)
		default:
			return fmt.Sprintf("%.0f µs", v*1e6)
		}
	case scenariofile.UnitTasksPerSec, scenariofile.UnitInsertsPerSec:
		return textfmt.ThousandsFloat(v) + " " + string(u)
	case scenariofile.UnitRatio:
		return fmt.Sprintf("%.3f×", v)
	case scenariofile.UnitFraction:
		return fmt.Sprintf("%.1f%%", v*100)
	case scenariofile.UnitRows, scenariofile.UnitBuffers, scenariofile.UnitCount, scenariofile.UnitTuples:
		return textfmt.ThousandsFloat(v)
	case scenariofile.UnitBytes:
		return formatBytes(v)
	case scenariofile.UnitInstructions:
		if v >= 1e9 {
			return fmt.Sprintf("%.3f G instructions", v/1e9)
		}
		return fmt.Sprintf("%.1f M instructions", v/1e6)
	}
	return fmt.Sprintf("%g", v)
}

// formatBytes renders a size in bytes with a binary unit: "512 B",
// "1.5 MiB".
func formatBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", v)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// formatBound renders a threshold's bounds: "≥ 0.85×", "≤ 1.00 ms", or
// both.
func formatBound(u scenariofile.Unit, t ThresholdResult) string {
	var parts []string
	if t.Min != nil {
		parts = append(parts, "≥ "+FormatValue(u, *t.Min))
	}
	if t.Max != nil {
		parts = append(parts, "≤ "+FormatValue(u, *t.Max))
	}
	return strings.Join(parts, ", ")
}

// unitOf returns the unit of a scenario's metric.
func unitOf(s ScenarioResult, metric string) scenariofile.Unit {
	if m := s.Metric(metric); m != nil {
		return m.Unit
	}
	if def, ok := scenariofile.LookupMetric(s.Workload, metric); ok {
		return def.Unit
	}
	return ""
}

// FormatBound renders a threshold's bounds in its metric's unit.
func FormatBound(s ScenarioResult, t ThresholdResult) string {
	return formatBound(unitOf(s, t.Metric), t)
}

// FormatMeasured renders what a threshold measured: the value, its interval
// and the interval's level when it had one, and the number of samples.
func FormatMeasured(s ScenarioResult, t ThresholdResult) string {
	m := s.Metric(t.Metric)
	if m == nil {
		return "–"
	}
	u := unitOf(s, t.Metric)
	out := FormatValue(u, t.Value)
	if t.Low != 0 || t.High != 0 {
		out += " [" + formatInterval(u, t.Low, t.High, m.Level) + "]"
	}
	return fmt.Sprintf("%s (n=%d)", out, t.N)
}

// formatInterval renders an interval and its level, as the reports' tables
// show it: "0.676× – 0.869× (93.8%)".
func formatInterval(u scenariofile.Unit, low, high, level float64) string {
	out := FormatValue(u, low) + " – " + FormatValue(u, high)
	if level > 0 {
		out += " (" + stats.FormatLevel(level) + ")"
	}
	return out
}
