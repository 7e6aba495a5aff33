// Package gate judges a candidate build's benchmark results against a base
// build's measured in the same run: the same scenarios on one machine and
// one database, round by round, the two builds taking turns (ABBA), so that
// both share every moment of the machine's noise. A metric regressed when
// its change is significant, with Holm's correction for the number of
// metrics judged, and larger than its noise floor: the largest change that
// runs of one build against itself (A/A, see Calibrate) produce.
package gate

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// Side names one of the two builds of an A/B run.
type Side string

// The two builds.
const (
	Base      Side = "base"
	Candidate Side = "candidate"
)

// Round is one round of an A/B run: each build ran the scenarios once,
// First first.
type Round struct {
	First     Side
	Base      *report.SuiteResult
	Candidate *report.SuiteResult
}

// Order returns the side that runs first in round i (from 0): ABBA ABBA…,
// so that neither build is always first, and a drift over the run (a
// machine warming up, a table growing) falls on both alike.
func Order(i int) Side {
	if i%4 == 0 || i%4 == 3 {
		return Base
	}
	return Candidate
}

// Verdict is the outcome for one metric.
type Verdict string

// Verdicts.
const (
	Regression  Verdict = "regression"
	Improvement Verdict = "improvement"
	NoChange    Verdict = "~"
	// NotGated metrics are reported, not judged (latencies, ratios within
	// a build's own run: see Gated).
	NotGated Verdict = "not gated"
	// Undecided: too few rounds, or a value the test cannot take (zero).
	Undecided Verdict = "undecided"
)

// Options are the decision rule's settings.
type Options struct {
	// Alpha is the family-wise error rate over the metrics judged
	// (default 0.05).
	Alpha float64
	// Calibration gives each metric's noise floor; nil or a metric it
	// does not know: DefaultFloor.
	Calibration *Calibration
	// DefaultFloor is the noise floor of a metric without calibration
	// (default 0.05: a change within ±5% is never a regression).
	DefaultFloor float64
	// Counted says the rounds ran on a server under cachegrind (bench ab
	// --instructions): its instruction counts are judged, and times and
	// throughputs, which valgrind slows tens of times, are only shown.
	Counted bool
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.DefaultFloor == 0 {
		o.DefaultFloor = DefaultFloor
	}
	return o
}

// DefaultAlpha is the family-wise error rate the gate allows.
const DefaultAlpha = 0.05

// DefaultFloor is the noise floor of a metric no calibration covers.
const DefaultFloor = 0.05

// MinRounds is the fewest paired rounds the test judges a noisy metric on.
const MinRounds = 3

// ServerInstructions is the metric bench ab --instructions adds to every
// scenario: the instructions the PostgreSQL server executed for one
// "bench run --scenario NAME" (the scenario and those it is measured
// against, their schemas' setup included).
const ServerInstructions = "server_instructions"

// GoCPUPerTask is a drain scenario's CPU time of the pgseq process per task
// drained: the Go side's work (worker, pools, observer), which
// ServerInstructions does not count and a round's throughput hides in the
// machine's noise. A/A runs of the quick drains move it by 10-15% a round
// (about as much as throughput) and up to 35% over a run (GoCPUFloor), but
// a worker doing 3 µs more per task claimed reads +55-86% here while
// throughput reads -3% ~ (results/gate-calibration/go-cpu/).
const GoCPUPerTask = "go_cpu_per_task"

// GoCPUFloor is the noise floor of GoCPUPerTask without calibration. A/A
// runs of the shipped quick gate moved it by up to 35% (high: its
// completions carry 40 to 370 tasks from one run to the next, and the Go
// side's work per task with them), once significantly after Holm's
// correction: one false alarm in 16 runs at the 5% default floor, none at
// this one. A worker 3 µs a task slower (9% slower on the drain baseline)
// reads +55% to +86%, still flagged in 10 of 10 runs; one 1.5 µs slower
// (7% slower, +26% to +39% here) no longer is by this metric
// (results/gate-calibration/go-cpu/).
const GoCPUFloor = 0.40

// InstructionsFloor is the noise floor of ServerInstructions without
// calibration: A/A runs of the drain scenarios differ by 1-3% (batches
// form differently from one run to the next, and the worker's heartbeats
// and maintenance come as time passes), where their throughputs differ by
// 10-20%.
const InstructionsFloor = 0.03

// Row is one metric of one scenario over the rounds.
type Row struct {
	Scenario       string            `json:"scenario"`
	Metric         string            `json:"metric"`
	Unit           scenariofile.Unit `json:"unit"`
	HigherIsBetter bool              `json:"higher_is_better"`
	// Gated rows are judged by the decision rule; the others are shown.
	Gated bool `json:"gated"`
	// Deterministic rows (a plan's rows, buffers, scans) are compared
	// without a test.
	Deterministic bool `json:"deterministic,omitempty"`
	// Base and Candidate are the values of each round, in round order.
	Base      []float64 `json:"base"`
	Candidate []float64 `json:"candidate"`
	// BaseMedian and CandidateMedian are their medians.
	BaseMedian      float64 `json:"base_median"`
	CandidateMedian float64 `json:"candidate_median"`
	// Change is candidate / base − 1: the geometric mean of the rounds'
	// ratios (noisy metrics), or the ratio of the medians (deterministic
	// ones). Low and High bound it at 95% (noisy metrics, from 2 rounds).
	Change float64 `json:"change"`
	Low    float64 `json:"ci95_low,omitempty"`
	High   float64 `json:"ci95_high,omitempty"`
	// P is the paired t-test's two-sided p-value on the logarithms of the
	// rounds' ratios, PAdjusted Holm's adjustment of it over the gated
	// rows; −1 when not tested.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Floor is the change the metric must exceed to be a regression or an
	// improvement, FloorFrom where it comes from.
	Floor     float64 `json:"floor"`
	FloorFrom string  `json:"floor_from"`
	Verdict   Verdict `json:"verdict"`
	// Why says why the verdict is what it is, in a few words.
	Why string `json:"why,omitempty"`
}

// Gated says whether a metric is judged by the gate: a scenario's
// throughput, a drain's Go CPU per task, and an explain scenario's plan
// shape. Latency percentiles of one round, ratios taken within one build's
// own run and counts such as running_max are shown beside them; their
// thresholds (bench run) judge them.
func Gated(w scenariofile.Workload, metric string) (gated, deterministic bool) {
	switch {
	case metric == "throughput", metric == ServerInstructions, w == scenariofile.WorkloadDrain && metric == GoCPUPerTask:
		return true, false
	case w == scenariofile.WorkloadExplain && (metric == "rows_examined" || metric == "buffers" || metric == "seq_scans"):
		return true, true
	}
	return false, false
}

// OncePerBuild says whether bench ab runs the scenarios of workload w in
// its first round only (both builds): every metric of w the gate judges is
// deterministic (an explain scenario's plan: rows, buffers, scans, compared
// by their medians without a test), so further rounds would measure the
// same counts again. Counted runs (bench ab --instructions) judge
// ServerInstructions, a noisy metric, for every scenario: none runs once.
func OncePerBuild(w scenariofile.Workload, counted bool) bool {
	if counted {
		return false
	}
	judged := false
	for _, name := range scenariofile.MetricNames(w) {
		gated, det := Gated(w, name)
		if gated && !det {
			return false
		}
		judged = judged || gated
	}
	return judged
}

// Series turns the rounds into rows: one per metric of each scenario the
// candidate ran in the first round, with the base's values of the same
// rounds. A scenario whose measured gated metrics are all deterministic
// (OncePerBuild: bench ab runs it in the first round only) may be missing
// from a round's two results alike: its rows hold the values of the rounds
// that measured it, its metrics shown beside them (claim_time) too. Any
// other missing scenario or metric is an error: the two builds must run
// the same scenarios, and a noisy metric is tested on every round.
func Series(rounds []Round) ([]Row, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("no rounds")
	}
	var rows []Row
	for _, s := range rounds[0].Candidate.Scenarios {
		// A counted run judges server_instructions of every scenario: none
		// ran once.
		once := OncePerBuild(s.Workload, s.Metric(ServerInstructions) != nil)
		for _, m := range s.Metrics {
			gated, det := Gated(s.Workload, m.Name)
			r := Row{Scenario: s.Name, Metric: m.Name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter,
				Gated: gated, Deterministic: det}
			if !measuredBySome(rounds, s.Name, m.Name) {
				continue // running_max in a counted run: nobody sampled it
			}
			for i, rd := range rounds {
				if once && rd.Base.Scenario(s.Name) == nil && rd.Candidate.Scenario(s.Name) == nil {
					continue // run once per build: not in this round
				}
				cv, ok := roundValue(rd.Candidate, s.Name, m.Name)
				if !ok && once && rd.Candidate.Scenario(s.Name) == nil {
					return nil, fmt.Errorf("round %d: the base ran scenario %q and the candidate did not (a scenario run once per build runs in both builds' half of a round, or in neither)", i+1, s.Name)
				}
				if !ok {
					return nil, fmt.Errorf("round %d: the candidate did not measure %s of scenario %q", i+1, m.Name, s.Name)
				}
				bv, ok := roundValue(rd.Base, s.Name, m.Name)
				if !ok {
					return nil, fmt.Errorf("round %d: the base did not measure %s of scenario %q (does the base know this scenario?)", i+1, m.Name, s.Name)
				}
				r.Candidate = append(r.Candidate, cv)
				r.Base = append(r.Base, bv)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// measuredBySome says whether either build measured the metric in some
// round.
func measuredBySome(rounds []Round, scenario, metric string) bool {
	for _, rd := range rounds {
		for _, res := range []*report.SuiteResult{rd.Base, rd.Candidate} {
			if _, ok := roundValue(res, scenario, metric); ok {
				return true
			}
		}
	}
	return false
}

// roundValue is a metric's value in one round's result.
func roundValue(res *report.SuiteResult, scenario, metric string) (float64, bool) {
	if s := res.Scenario(scenario); s != nil {
		if m := s.Metric(metric); m != nil && m.N > 0 {
			return m.Value, true
		}
	}
	return 0, false
}

// Judge applies the decision rule to rows (from Series) and returns them
// with their verdicts.
func Judge(rows []Row, opts Options) []Row {
	opts = opts.withDefaults()
	out := slices.Clone(rows)
	var tested []int
	for i := range out {
		r := &out[i]
		r.P, r.PAdjusted = -1, -1
		r.BaseMedian, r.CandidateMedian = stats.Median(r.Base), stats.Median(r.Candidate)
		r.Floor, r.FloorFrom = opts.floor(r.Scenario, r.Metric, r.Deterministic)
		if opts.Counted && r.Gated && !r.Deterministic && r.Metric != ServerInstructions {
			r.Gated, r.Why = false, "measured under valgrind: shown, not judged"
		}
		switch {
		case r.Deterministic:
			r.Change = deterministicChange(r.BaseMedian, r.CandidateMedian)
		default:
			if ok := pairedTest(r); ok && r.Gated {
				tested = append(tested, i)
			}
		}
	}
	holm(out, tested)
	for i := range out {
		decide(&out[i], opts.Alpha)
	}
	return out
}

func (o Options) floor(scenario, metric string, deterministic bool) (float64, string) {
	if o.Calibration != nil {
		if f, ok := o.Calibration.Floor(scenario, metric); ok {
			return f, "calibration"
		}
	}
	switch {
	case deterministic:
		return DeterministicFloor, "default"
	case metric == ServerInstructions:
		return InstructionsFloor, "default"
	case metric == GoCPUPerTask:
		return GoCPUFloor, "default"
	}
	return o.DefaultFloor, "default"
}

// DeterministicFloor is the noise floor of a plan's rows, buffers and
// scans: a plan's buffers move by a few from one run to the next (hint
// bits, a page split).
const DeterministicFloor = 0.05

// deterministicChange is (c − b) / b, with a zero base counted as one (0 →
// 3 sequential scans is +300%).
func deterministicChange(b, c float64) float64 {
	return (c - b) / math.Max(b, 1)
}

// pairedTest fills r's change, interval and p-value from the rounds'
// ratios; false when it cannot (too few rounds, a value ≤ 0): a paired
// t-test on the ratios' logarithms. (Wilcoxon's signed-rank test was
// tried: with 8 rounds its smallest p-value, 2/256, cannot pass Holm's
// correction over 7 metrics, whatever the change.)
func pairedTest(r *Row) bool {
	n := len(r.Base)
	logs := make([]float64, 0, n)
	for i := range r.Base {
		if r.Base[i] <= 0 || r.Candidate[i] <= 0 {
			r.Why = "a round measured zero"
			return false
		}
		logs = append(logs, math.Log(r.Candidate[i]/r.Base[i]))
	}
	mean := stat.Mean(logs, nil)
	r.Change = math.Exp(mean) - 1
	if n < 2 {
		r.Why = fmt.Sprintf("%d round: no test", n)
		return false
	}
	sd := stat.StdDev(logs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	half := t.Quantile(0.975) * sd / math.Sqrt(float64(n))
	r.Low, r.High = math.Exp(mean-half)-1, math.Exp(mean+half)-1
	if n < MinRounds {
		r.Why = fmt.Sprintf("%d rounds: the test needs %d", n, MinRounds)
		return false
	}
	switch {
	case sd == 0 && mean == 0:
		r.P = 1
	case sd == 0:
		r.P = 0
	default:
		stat := mean / (sd / math.Sqrt(float64(n)))
		r.P = 2 * t.CDF(-math.Abs(stat))
	}
	return true
}

// holm sets PAdjusted of the rows at idx: Holm's step-down adjustment,
// which keeps the chance of any false "significant" among them at most
// alpha.
func holm(rows []Row, idx []int) {
	sort.SliceStable(idx, func(a, b int) bool { return rows[idx[a]].P < rows[idx[b]].P })
	m := len(idx)
	running := 0.0
	for k, i := range idx {
		adj := math.Min(1, float64(m-k)*rows[i].P)
		running = math.Max(running, adj)
		rows[i].PAdjusted = running
	}
}

// decide sets r's verdict.
func decide(r *Row, alpha float64) {
	worse := r.Change < 0 == r.HigherIsBetter && r.Change != 0
	beyond := math.Abs(r.Change) > r.Floor
	switch {
	case !r.Gated:
		r.Verdict = NotGated
	case r.Deterministic:
		switch {
		case beyond && worse:
			r.Verdict, r.Why = Regression, fmt.Sprintf("beyond the ±%s floor", percent(r.Floor))
		case beyond:
			r.Verdict, r.Why = Improvement, fmt.Sprintf("beyond the ±%s floor", percent(r.Floor))
		default:
			r.Verdict, r.Why = NoChange, fmt.Sprintf("within the ±%s floor", percent(r.Floor))
		}
	case r.PAdjusted < 0:
		r.Verdict = Undecided
	case r.PAdjusted >= alpha:
		r.Verdict, r.Why = NoChange, fmt.Sprintf("not significant (p=%s after Holm)", stats.FormatPValue(r.PAdjusted))
	case !beyond:
		r.Verdict, r.Why = NoChange, fmt.Sprintf("significant but within the ±%s noise floor", percent(r.Floor))
	case worse:
		r.Verdict, r.Why = Regression, fmt.Sprintf("p=%s after Holm, beyond the ±%s floor", stats.FormatPValue(r.PAdjusted), percent(r.Floor))
	default:
		r.Verdict, r.Why = Improvement, fmt.Sprintf("p=%s after Holm, beyond the ±%s floor", stats.FormatPValue(r.PAdjusted), percent(r.Floor))
	}
}

// Count returns how many rows have verdict v.
func Count(rows []Row, v Verdict) int {
	n := 0
	for _, r := range rows {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

func percent(x float64) string {
	switch a := math.Abs(x) * 100; {
	case a >= 10:
		return fmt.Sprintf("%.0f%%", x*100)
	default:
		return fmt.Sprintf("%.1f%%", x*100)
	}
}
