// Package compare compares two benchmark runs metric by metric, as pgseq
// bench compare does (Compare: a Mann–Whitney U test per metric), and
// writes a run in the Go benchmark format for benchstat (WriteGoBench).
package compare

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// Options configure Compare. Zero fields take their defaults.
type Options struct {
	// Tolerance is the relative change (0.05: 5%) a significant change
	// must exceed in the bad direction to count as a regression (in the
	// good direction, as an improvement). Default 0.05.
	Tolerance float64
	// Alpha is the significance level of the Mann–Whitney U test: a change
	// is significant when its p-value is below Alpha. Default 0.05.
	Alpha float64
}

func (o Options) withDefaults() Options {
	if o.Tolerance <= 0 {
		o.Tolerance = 0.05
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	return o
}

// Comparison is an old run compared with a new one (pgseq bench compare),
// metric by metric.
type Comparison struct {
	// Options are the options the comparison used, defaults filled in.
	Options Options
	// Rows are one per scenario and metric present in both runs, in the
	// new run's order.
	Rows []Row
	// Warnings say what makes the runs less comparable than they look:
	// different environments, metrics present in one run only.
	Warnings []string
	// Regressions is the number of rows with Regression set; a caller
	// that gates on the comparison fails when it is not zero.
	Regressions int
	// NotJudged says why no row is called a regression or an improvement:
	// the runs were made on different machines (CPU, PostgreSQL, its
	// settings, Go) or under different loads, where a difference of
	// 20–40% is the machine's, not the code's. The rows still show every
	// change; pgseq bench ab judges two builds on one machine.
	NotJudged []string
}

// judgeableLoadGap is the largest difference of the hosts' mean load
// averages (per CPU) between two runs that compare still judges.
const judgeableLoadGap = 0.5

// Row compares one metric of one scenario.
type Row struct {
	Scenario string
	Metric   string
	Unit     scenariofile.Unit
	// HigherIsBetter says which direction is an improvement.
	HigherIsBetter bool
	// Old and New are the medians of each run's samples, OldN and NewN
	// the sample counts (rounds, or 1 for a metric measured once).
	Old, New   float64
	OldN, NewN int
	// Delta is New/Old - 1 (0 when both are 0, ±Inf when Old alone is).
	Delta float64
	// P is the two-sided p-value of the Mann–Whitney U test of the
	// samples; NaN when no test was made (a single sample on each side).
	P float64
	// Significant says P < Alpha.
	Significant bool
	// Regression says the change is significant (or, for single samples
	// of a deterministic metric, exact) and worse than Tolerance in the
	// metric's bad direction; Improvement the same in the good direction.
	Regression  bool
	Improvement bool
	// Note explains a row that was not or could not be tested ("single
	// sample", too few rounds).
	Note string
}

// Compare compares two runs scenario by scenario. It refuses runs that
// cannot be compared: different sets of scenarios, a scenario of a
// different workload or run at a different size (the number of rounds
// may differ: it is the number of samples, not their size), one run
// --quick and the other not. Different environments only warn.
//
// Each metric's samples (its per-round values) are compared with a
// two-sided Mann–Whitney U test, exact for small samples (with 5 rounds
// against 5 the smallest possible p is 2/252 ≈ 0.0079). A metric measured
// once on each side has no test: a deterministic one (rows, buffers,
// counts: the plan's shape) is compared exactly, a single timing is
// reported and never flagged.
//
// Which way is better comes from this pgseq's definition of the metric,
// else from the old run, never from the new run alone; runs whose files
// disagree on it are refused, naming the metric (cmpDirection).
func Compare(old, new *report.SuiteResult, opts Options) (*Comparison, error) {
	if old == nil || new == nil {
		return nil, errors.New("comparing runs: a run is missing")
	}
	opts = opts.withDefaults()
	olds, err := cmpScenariosByName(old, "old")
	if err != nil {
		return nil, err
	}
	news, err := cmpScenariosByName(new, "new")
	if err != nil {
		return nil, err
	}
	if err := cmpSameScenarios(old, new, olds, news); err != nil {
		return nil, err
	}

	c := &Comparison{Options: opts}
	c.NotJudged = cmpEnvironmentWarnings(old.Environment, new.Environment)
	if gap := cmpLoadGap(old, new); gap != "" {
		c.NotJudged = append(c.NotJudged, gap)
	}
	for i := range new.Scenarios {
		ns := &new.Scenarios[i]
		prev := olds[ns.Name]
		if prev.Against != ns.Against {
			c.Warnings = append(c.Warnings, fmt.Sprintf("scenario %q is measured against %s in the old run and against %s in the new one: its ratios compare different things",
				ns.Name, cmpQuoteOrNothing(prev.Against), cmpQuoteOrNothing(ns.Against)))
		}
		for j := range ns.Metrics {
			nm := &ns.Metrics[j]
			om := prev.Metric(nm.Name)
			if om == nil {
				c.Warnings = append(c.Warnings, fmt.Sprintf("scenario %q: metric %s is only in the new run", ns.Name, nm.Name))
				continue
			}
			if om.Unit != nm.Unit {
				c.Warnings = append(c.Warnings, fmt.Sprintf("scenario %q: metric %s is in %s in the old run and in %s in the new one; not compared",
					ns.Name, nm.Name, om.Unit, nm.Unit))
				continue
			}
			oldS, newS := cmpSamples(om), cmpSamples(nm)
			if len(oldS) == 0 || len(newS) == 0 {
				which := "new"
				if len(oldS) == 0 {
					which = "old"
				}
				c.Warnings = append(c.Warnings, fmt.Sprintf("scenario %q: metric %s has no value in the %s run; not compared", ns.Name, nm.Name, which))
				continue
			}
			higher, warning, err := cmpDirection(ns, om, nm)
			if err != nil {
				return nil, err
			}
			if warning != "" {
				c.Warnings = append(c.Warnings, warning)
			}
			row := cmpMetric(ns.Name, nm, higher, oldS, newS, opts)
			if len(c.NotJudged) > 0 && (row.Regression || row.Improvement) {
				row.Regression, row.Improvement = false, false
				row.Note = "not judged: " + row.deltaText()
			}
			if row.Regression {
				c.Regressions++
			}
			c.Rows = append(c.Rows, row)
		}
		for j := range prev.Metrics {
			if ns.Metric(prev.Metrics[j].Name) == nil {
				c.Warnings = append(c.Warnings, fmt.Sprintf("scenario %q: metric %s is only in the old run", ns.Name, prev.Metrics[j].Name))
			}
		}
	}
	return c, nil
}

// cmpLoadGap says how the runs' host loads differ when they differ by
// more than judgeableLoadGap per CPU; "" otherwise, or when a load is
// unknown.
func cmpLoadGap(old, new *report.SuiteResult) string {
	mean := func(r *report.SuiteResult) float64 { return (r.LoadBefore + r.LoadAfter) / 2 }
	if old.LoadBefore < 0 || new.LoadBefore < 0 || old.LoadAfter < 0 || new.LoadAfter < 0 {
		return ""
	}
	cpus := float64(max(1, min(old.Environment.NumCPU, new.Environment.NumCPU)))
	if math.Abs(mean(old)-mean(new))/cpus <= judgeableLoadGap {
		return ""
	}
	return fmt.Sprintf("the hosts' loads differ: %.2f → %.2f in the old run, %.2f → %.2f in the new one (1-minute averages, %d CPUs)",
		old.LoadBefore, old.LoadAfter, new.LoadBefore, new.LoadAfter, int(cpus))
}

// cmpScenariosByName indexes a run's scenarios, refusing duplicate names.
func cmpScenariosByName(r *report.SuiteResult, which string) (map[string]*report.ScenarioResult, error) {
	m := make(map[string]*report.ScenarioResult, len(r.Scenarios))
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if _, dup := m[s.Name]; dup {
			return nil, fmt.Errorf("the %s run has scenario %q twice", which, s.Name)
		}
		m[s.Name] = s
	}
	return m, nil
}

// cmpSameScenarios refuses runs whose scenarios are not the same ones, of the
// same workloads, at the same sizes.
func cmpSameScenarios(old, new *report.SuiteResult, olds, news map[string]*report.ScenarioResult) error {
	var only []string
	for _, s := range old.Scenarios {
		if news[s.Name] == nil {
			only = append(only, fmt.Sprintf("%q only in the old run", s.Name))
		}
	}
	for _, s := range new.Scenarios {
		if olds[s.Name] == nil {
			only = append(only, fmt.Sprintf("%q only in the new run", s.Name))
		}
	}
	if len(only) > 0 {
		return fmt.Errorf("the runs have different scenarios: %s", strings.Join(only, ", "))
	}
	var diffs []string
	for _, ns := range new.Scenarios {
		prev := olds[ns.Name]
		if prev.Workload != ns.Workload {
			diffs = append(diffs, fmt.Sprintf("scenario %q is a %s workload in the old run and a %s one in the new run", ns.Name, prev.Workload, ns.Workload))
			continue
		}
		if d := cmpSizeDiff(prev.Size, ns.Size); d != "" {
			diffs = append(diffs, fmt.Sprintf("scenario %q ran at a different size (%s)", ns.Name, d))
		}
	}
	if old.Quick != new.Quick {
		q := map[bool]string{true: "at --quick sizes", false: "at full size"}
		msg := fmt.Sprintf("the old run ran %s and the new one %s", q[old.Quick], q[new.Quick])
		if len(diffs) > 0 {
			msg += ": " + strings.Join(diffs, "; ")
		}
		return errors.New(msg + "; run both the same way to compare them")
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the runs cannot be compared: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// cmpSizeDiff describes how two sizes differ, ignoring Rounds; "" when they
// do not.
func cmpSizeDiff(o, n scenariofile.Size) string {
	var d []string
	field := func(name string, a, b int) {
		if a != b {
			d = append(d, fmt.Sprintf("%s %s old, %s new", name, textfmt.Thousands(a), textfmt.Thousands(b)))
		}
	}
	field("tasks", o.Tasks, n.Tasks)
	field("warmup", o.Warmup, n.Warmup)
	field("workers", o.Workers, n.Workers)
	field("pool_size", o.PoolSize, n.PoolSize)
	field("batch_size", o.BatchSize, n.BatchSize)
	field("clients", o.Clients, n.Clients)
	field("connections", o.Connections, n.Connections)
	field("task_types", o.TaskTypes, n.TaskTypes)
	field("limit", o.Limit, n.Limit)
	if o.Duration != n.Duration {
		d = append(d, fmt.Sprintf("duration %s old, %s new", o.Duration, n.Duration))
	}
	return strings.Join(d, ", ")
}

// cmpEnvironmentWarnings lists the differences between two environments.
func cmpEnvironmentWarnings(o, n report.Environment) []string {
	var w []string
	diff := func(what, a, b string) {
		if a != b {
			w = append(w, fmt.Sprintf("the environments differ: %s %s in the old run, %s in the new one", what, cmpQuoteOrUnknown(a), cmpQuoteOrUnknown(b)))
		}
	}
	diff("PostgreSQL", o.Postgres, n.Postgres)
	diff("Go", o.GoVersion, n.GoVersion)
	diff("OS/arch", o.OS+"/"+o.Arch, n.OS+"/"+n.Arch)
	diff("CPU count", strconv.Itoa(o.NumCPU), strconv.Itoa(n.NumCPU))
	diff("GOMAXPROCS", strconv.Itoa(o.GOMAXPROCS), strconv.Itoa(n.GOMAXPROCS))
	diff("CPU model", o.CPUModel, n.CPUModel)
	keys := make([]string, 0, len(o.PostgresSettings)+len(n.PostgresSettings))
	for k := range o.PostgresSettings {
		keys = append(keys, k)
	}
	for k := range n.PostgresSettings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		diff("setting "+k, o.PostgresSettings[k], n.PostgresSettings[k])
	}
	return w
}

func cmpQuoteOrUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return strconv.Quote(s)
}

func cmpQuoteOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return strconv.Quote(s)
}

// cmpSamples returns a metric's samples: its per-round values, or its
// one value when it was measured once (nil when it has no value at all).
func cmpSamples(m *report.MetricResult) []float64 {
	if len(m.Samples) > 0 {
		return m.Samples
	}
	if m.N > 0 {
		return []float64{m.Value}
	}
	return nil
}

// cmpDeterministicUnit says whether a single measurement in unit u is exact
// enough to compare without a test: the plan's shape (rows, buffers,
// counts) is; a single timing or throughput is noise.
func cmpDeterministicUnit(u scenariofile.Unit) bool {
	switch u {
	case scenariofile.UnitRows, scenariofile.UnitBuffers, scenariofile.UnitCount:
		return true
	}
	return false
}

// cmpDirection returns which way is better for metric om (old run) / nm
// (new run) of scenario ns: this pgseq's definition of the metric
// (scenariofile.LookupMetric), else, for a metric it does not define, the
// old run's. Never the new run's alone: a candidate result saying that
// throughput is better lower would turn a collapse into an improvement.
// Runs that disagree are refused, naming the metric; runs that agree with
// each other but not with the definition get a warning.
func cmpDirection(ns *report.ScenarioResult, om, nm *report.MetricResult) (higherIsBetter bool, warning string, err error) {
	def, known := scenariofile.LookupMetric(ns.Workload, nm.Name)
	if om.HigherIsBetter != nm.HigherIsBetter {
		defined := "this pgseq does not define it"
		if known {
			defined = "this pgseq defines it as " + cmpDirectionWord(def.HigherIsBetter)
		}
		return false, "", fmt.Errorf("the runs cannot be compared: scenario %q: metric %s is %s in the old run and %s in the new one (higher_is_better), and %s; a result file was edited or written by another pgseq: make both runs with the same pgseq",
			ns.Name, nm.Name, cmpDirectionWord(om.HigherIsBetter), cmpDirectionWord(nm.HigherIsBetter), defined)
	}
	if !known {
		return om.HigherIsBetter, "", nil
	}
	if def.HigherIsBetter != om.HigherIsBetter {
		warning = fmt.Sprintf("scenario %q: metric %s is %s in both runs, but this pgseq defines it as %s, which the comparison uses",
			ns.Name, nm.Name, cmpDirectionWord(om.HigherIsBetter), cmpDirectionWord(def.HigherIsBetter))
	}
	return def.HigherIsBetter, warning, nil
}

// cmpDirectionWord names a direction: "higher-is-better" or "lower-is-better".
func cmpDirectionWord(higherIsBetter bool) string {
	if higherIsBetter {
		return "higher-is-better"
	}
	return "lower-is-better"
}

// cmpMetric compares the samples of metric m, higherIsBetter saying which
// way is an improvement (cmpDirection; never m's own word, which comes
// from the new run's file).
func cmpMetric(scenario string, m *report.MetricResult, higherIsBetter bool, oldS, newS []float64, opts Options) Row {
	row := Row{
		Scenario: scenario, Metric: m.Name, Unit: m.Unit, HigherIsBetter: higherIsBetter,
		Old: stats.Median(oldS), New: stats.Median(newS), OldN: len(oldS), NewN: len(newS), P: math.NaN(),
	}
	row.Delta = cmpRelativeChange(row.Old, row.New)
	// worse and better say the change exceeds the tolerance in the bad or
	// the good direction.
	change := row.Delta
	if !higherIsBetter {
		change = -change
	}
	worse, better := change < -opts.Tolerance, change > opts.Tolerance

	if row.OldN == 1 && row.NewN == 1 {
		if !cmpDeterministicUnit(m.Unit) {
			row.Note = "single sample: not tested"
			return row
		}
		row.Note = "single sample"
		row.Regression, row.Improvement = worse, better
		return row
	}
	row.P = stats.MannWhitneyP(oldS, newS)
	if minP := stats.MannWhitneyMinP(row.OldN, row.NewN); minP >= opts.Alpha {
		row.Note = fmt.Sprintf("too few rounds to test (%d and %d: p is never below %.2g)", row.OldN, row.NewN, minP)
		return row
	}
	row.Significant = row.P < opts.Alpha
	if row.Significant {
		row.Regression, row.Improvement = worse, better
		if !worse && !better {
			row.Note = fmt.Sprintf("within the %s tolerance", cmpPercent(opts.Tolerance))
		}
	}
	return row
}

// cmpRelativeChange returns n/o - 1, 0 when both are 0, ±Inf when only o is.
func cmpRelativeChange(o, n float64) float64 {
	switch {
	case o == n:
		return 0
	case o == 0:
		return math.Inf(int(math.Copysign(1, n)))
	}
	return n/o - 1
}

// WriteText writes the comparison as an aligned table, benchstat-like:
// each metric's old and new medians, the change (or "~" when it is not
// significant), the p-value and the sample counts, warnings first and a
// summary last.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, why := range c.NotJudged {
		fmt.Fprintf(&b, "cannot judge: %s\n", why)
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	if len(c.Warnings)+len(c.NotJudged) > 0 {
		b.WriteString("\n")
	}
	rows := [][]string{{"scenario", "metric", "old", "new", "delta", "p", "n", ""}}
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Scenario, r.Metric, report.FormatValue(r.Unit, r.Old), report.FormatValue(r.Unit, r.New),
			r.deltaText(), r.pText(), r.nText(), r.remark("")})
	}
	report.WriteAligned(&b, rows, []bool{false, false, true, true, true, true, true, false})
	b.WriteString("\n" + c.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the comparison as a Markdown table, for a
// pull-request comment.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## Benchmark comparison\n\n")
	b.WriteString(c.summary() + "\n\n")
	if len(c.NotJudged) > 0 {
		b.WriteString("Not judged, because:\n\n")
		for _, why := range c.NotJudged {
			fmt.Fprintf(&b, "- %s\n", cmpMarkdownEscape(why))
		}
		b.WriteString("\n")
	}
	if len(c.Warnings) > 0 {
		b.WriteString("Warnings:\n\n")
		for _, warn := range c.Warnings {
			fmt.Fprintf(&b, "- %s\n", cmpMarkdownEscape(warn))
		}
		b.WriteString("\n")
	}
	b.WriteString("| scenario | metric | old | new | delta | p | n | |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|---|\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cmpMarkdownEscape(r.Scenario), r.Metric, report.FormatValue(r.Unit, r.Old), report.FormatValue(r.Unit, r.New),
			r.deltaText(), r.pText(), r.nText(), cmpMarkdownEscape(r.remark("**")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Comparison) summary() string {
	improvements, untestable := 0, 0
	for _, r := range c.Rows {
		if r.Improvement {
			improvements++
		}
		if strings.HasPrefix(r.Note, "too few rounds") {
			untestable++
		}
	}
	if len(c.NotJudged) > 0 {
		return fmt.Sprintf("Not judged: the two runs were made on different machines or under different loads (%s), "+
			"where the same code reads 20–40%% apart; the table shows the changes only. "+
			"To judge a build against another, run both on one machine in one run: pgseq bench ab --base PATH.",
			textfmt.Plural(len(c.NotJudged), "reason"))
	}
	s := fmt.Sprintf("%s, %s beyond ±%s (two-sided Mann–Whitney U test, α = %g; ~: no significant change).",
		cmpPluralCount(c.Regressions, "regression"), cmpPluralCount(improvements, "improvement"), cmpPercent(c.Options.Tolerance), c.Options.Alpha)
	var moved []string
	for _, r := range c.Rows {
		if r.Regression || r.Improvement {
			moved = append(moved, r.Scenario+" "+r.Metric+" "+r.deltaText())
		}
	}
	if len(moved) > 0 {
		s += " Moved: " + strings.Join(moved, ", ") + "."
	}
	if untestable > 0 {
		// A comparison that could not test a metric must not read as a
		// pass: with 3 rounds a side no difference is ever significant.
		s += fmt.Sprintf(" %s of %d could not be tested: too few rounds (give the scenarios 4 or more, 5 to see smaller changes).",
			textfmt.Plural(untestable, "metric"), len(c.Rows))
	}
	return s
}

// cmpPercent formats a fraction as a percentage without useless digits:
// 5%, 2.5%.
func cmpPercent(x float64) string {
	return strconv.FormatFloat(x*100, 'f', -1, 64) + "%"
}

func cmpPluralCount(n int, noun string) string {
	if n == 0 {
		return "no " + noun + "s"
	}
	return textfmt.Plural(n, noun)
}

// deltaText is the change in percent, or "~" when it is not significant
// (single samples: when the values are equal).
func (r Row) deltaText() string {
	single := r.OldN == 1 && r.NewN == 1
	if !r.Significant && !(single && r.Delta != 0) {
		return "~"
	}
	switch {
	case math.IsInf(r.Delta, 1):
		return "+∞"
	case math.IsInf(r.Delta, -1):
		return "-∞"
	}
	return fmt.Sprintf("%+.1f%%", r.Delta*100)
}

func (r Row) pText() string { return stats.FormatPValue(r.P) }

func (r Row) nText() string { return fmt.Sprintf("%d+%d", r.OldN, r.NewN) }

// remark is the row's verdict (regression or improvement, between
// strong) and its note.
func (r Row) remark(strong string) string {
	var parts []string
	if r.Regression {
		parts = append(parts, strong+"regression"+strong)
	}
	if r.Improvement {
		parts = append(parts, strong+"improvement"+strong)
	}
	if r.Note != "" {
		parts = append(parts, r.Note)
	}
	return strings.Join(parts, "; ")
}

// cmpMarkdownEscape escapes the characters that would break a table cell.
func cmpMarkdownEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
