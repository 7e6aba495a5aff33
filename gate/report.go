package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// ReportFormatVersion is the version of the A/B report document.
const ReportFormatVersion = "1.0"

// Report is one `pgseq bench ab`: the builds, the rounds, every metric's
// row and verdict, and the candidate's acceptance thresholds judged on its
// rounds merged.
type Report struct {
	FormatVersion string    `json:"format_version"`
	StartedAt     time.Time `json:"started_at"`
	Seconds       float64   `json:"seconds"`
	// Command is the command line (passwords redacted).
	Command   []string `json:"command"`
	Base      Build    `json:"base"`
	Candidate Build    `json:"candidate"`
	// Order is who ran first in each round.
	Order []Side `json:"order"`
	Quick bool   `json:"quick"`
	// OncePerBuild are the scenarios each build ran in the first round
	// only (see OncePerBuild): their rows hold one value a side.
	OncePerBuild []string `json:"once_per_build,omitempty"`
	// Instructions says the server ran under valgrind's cachegrind (bench
	// ab --instructions): its instruction counts are judged, and the
	// throughputs and times, which valgrind slows, are only shown.
	Instructions bool               `json:"instructions,omitempty"`
	Environment  report.Environment `json:"environment"`
	// Loads are the host's 1-minute load averages at each invocation's
	// start, in run order.
	Loads []float64 `json:"loads"`
	Alpha float64   `json:"alpha"`
	// Calibration is the calibration file whose floors were used ("":
	// the defaults).
	Calibration string `json:"calibration,omitempty"`
	Rows        []Row  `json:"rows"`
	// Functions says, for each counted scenario (bench ab
	// --instructions), which functions' instructions changed most.
	Functions []FunctionChanges `json:"function_changes,omitempty"`
	// Thresholds is the candidate's rounds merged, its acceptance
	// thresholds judged on them (bench run's rule).
	Thresholds *report.SuiteResult `json:"candidate_thresholds,omitempty"`
}

// Build is one side's pgseq.
type Build struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// Regressions returns the rows that regressed.
func (r *Report) Regressions() []Row {
	var out []Row
	for _, x := range r.Rows {
		if x.Verdict == Regression {
			out = append(out, x)
		}
	}
	return out
}

// WriteJSON writes the report.
func (r *Report) WriteJSON(w io.Writer) error {
	red := *r
	red.Command = report.RedactCommand(r.Command)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&red)
}

// Summary is the verdict line.
func (r *Report) Summary() string {
	gated := 0
	for _, x := range r.Rows {
		if x.Gated {
			gated++
		}
	}
	reg := r.Regressions()
	if len(reg) == 0 {
		return fmt.Sprintf("no regression: %d metrics judged over %s (%d ~, %d improved, %d undecided)",
			gated, roundsText(len(r.Order)), Count(r.Rows, NoChange), Count(r.Rows, Improvement), Count(r.Rows, Undecided))
	}
	names := make([]string, len(reg))
	for i, x := range reg {
		names[i] = fmt.Sprintf("%s %s %s", x.Scenario, x.Metric, signedPercent(x.Change))
	}
	return fmt.Sprintf("REGRESSION in %d of %d metrics judged over %s: %s",
		len(reg), gated, roundsText(len(r.Order)), strings.Join(names, ", "))
}

// table returns the rows as cells: the gated rows, or the others.
func (r *Report) table(gated bool) [][]string {
	rows := [][]string{{"SCENARIO", "METRIC", "BASE", "CANDIDATE", "CHANGE", "95% CI", "P (HOLM)", "FLOOR", "VERDICT"}}
	for _, x := range r.Rows {
		if x.Gated != gated {
			continue
		}
		ci, p := "", ""
		if x.Low != 0 || x.High != 0 {
			ci = signedPercent(x.Low) + " … " + signedPercent(x.High)
		}
		if x.PAdjusted >= 0 {
			p = stats.FormatPValue(x.PAdjusted)
		}
		floor := ""
		if x.Gated {
			floor = "±" + percent(x.Floor)
			if x.FloorFrom == "default" {
				floor += " (default)"
			}
		}
		rows = append(rows, []string{x.Scenario, x.Metric,
			report.FormatValue(x.Unit, x.BaseMedian), report.FormatValue(x.Unit, x.CandidateMedian),
			signedPercent(x.Change), ci, p, floor, string(x.Verdict)})
	}
	return rows
}

// WriteText writes the gated rows, the run's conditions and the verdict.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "base %s (%s) against candidate %s (%s), %s in the order %s\n",
		r.Base.Path, r.Base.Version, r.Candidate.Path, r.Candidate.Version, roundsText(len(r.Order)), orderText(r.Order))
	fmt.Fprintf(&b, "machine: %d CPUs (%s), %s; load %s\n\n", r.Environment.NumCPU, r.Environment.CPUModel,
		firstWords(r.Environment.Postgres, 2), loadsText(r.Loads))
	if r.Instructions {
		b.WriteString("counted: the server ran under valgrind's cachegrind; its instructions are judged, times are only shown\n\n")
	}
	if len(r.OncePerBuild) > 0 {
		fmt.Fprintf(&b, "once per build (round 1 only; their plans' counts are the same every run): %s\n\n", strings.Join(r.OncePerBuild, ", "))
	}
	report.WriteAligned(&b, r.table(true), make([]bool, 9))
	fmt.Fprintf(&b, "\n(%d more metrics are shown in the report, not gated: latencies and ratios within one build's run.)\n", Count(r.Rows, NotGated))
	if len(r.Functions) > 0 {
		fmt.Fprintf(&b, "\nWhere the instructions changed (each build's mean a round; the top %d in ab.md):\n", TopFunctions)
		for _, fc := range r.Functions {
			fmt.Fprintf(&b, "\n%s: %s\n", fc.Scenario, totalsText(fc))
			if len(fc.Functions) == 0 {
				b.WriteString("no function's count changed\n")
				continue
			}
			report.WriteAligned(&b, functionTable(fc, TopFunctionsText, false), []bool{false, true, true, true, true})
		}
	}
	fmt.Fprintf(&b, "\nVerdict: %s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report for a pull-request comment.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## pgseq bench ab: %s\n\n", r.Summary())
	fmt.Fprintf(&b, "Base `%s` (%s), candidate `%s` (%s): %s, the builds taking turns (%s) on one machine and database. ",
		r.Base.Path, r.Base.Version, r.Candidate.Path, r.Candidate.Version, roundsText(len(r.Order)), orderText(r.Order))
	fmt.Fprintf(&b, "A metric regressed when its change is significant at %.2g after Holm's correction over the %d metrics judged **and** larger than its noise floor", r.Alpha, len(r.Rows)-Count(r.Rows, NotGated))
	if r.Calibration != "" {
		fmt.Fprintf(&b, " (from `%s`).\n\n", r.Calibration)
	} else {
		fmt.Fprintf(&b, " (defaults: ±%s, plans ±%s, %s ±%s; run `pgseq bench calibrate` for this machine's).\n\n",
			percent(DefaultFloor), percent(DeterministicFloor), GoCPUPerTask, percent(GoCPUFloor))
	}
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), %s. Load at each invocation: %s.\n\n", r.Environment.NumCPU, r.Environment.CPUModel,
		firstWords(r.Environment.Postgres, 2), loadsText(r.Loads))
	if len(r.OncePerBuild) > 0 {
		fmt.Fprintf(&b, "Run once per build, in round 1 only: %s. Every metric judged of them is a plan's count (rows, buffers, sequential scans), the same every run, so they are compared on that round; their other metrics are that round's too.\n\n",
			codeList(r.OncePerBuild))
	}
	if r.Instructions {
		b.WriteString("Counted: the PostgreSQL server ran under valgrind's cachegrind, and `server_instructions` is what it executed for each scenario's `bench run` (setup, seeding and drain): a count that does not depend on the machine's load. Throughputs and times, which valgrind slows tens of times, are only shown.\n\n")
	}
	writeMarkdownTable(&b, r.table(true))
	b.WriteString("\n<details><summary>Not gated (shown only)</summary>\n\n")
	writeMarkdownTable(&b, r.table(false))
	b.WriteString("\n</details>\n")
	if len(r.Functions) > 0 {
		b.WriteString("\n### Where the instructions changed\n\n")
		fmt.Fprintf(&b, "The %d functions whose instructions changed most in each scenario: each build's mean a round over the %d rounds (summed over the server processes that served the scenario), and the change, also as a share of the base's total. ", TopFunctions, len(r.Order))
		b.WriteString("They are PostgreSQL's C functions (and its libraries'), named `file:function` as `cg_annotate` names them: `???` for a file where the binary has no debugging information, `???:???` for the functions a stripped binary does not name. ")
		b.WriteString("Every function's count of each round is in `rounds/ROUND/SCENARIO/server_functions.tsv`.\n")
		for _, fc := range r.Functions {
			fmt.Fprintf(&b, "\n**%s**: %s.\n\n", fc.Scenario, totalsText(fc))
			if len(fc.Functions) == 0 {
				b.WriteString("No function's count changed.\n")
				continue
			}
			writeMarkdownTable(&b, functionTable(fc, TopFunctions, true))
		}
	}
	if r.Thresholds != nil {
		met, missed, inconclusive := r.Thresholds.Counts()
		fmt.Fprintf(&b, "\n### Acceptance thresholds (the candidate's %s)\n\n%d met, %d missed, %d inconclusive.\n\n",
			roundsText(len(r.Order)), met, missed, inconclusive)
		rows := [][]string{{"STATUS", "SCENARIO", "METRIC", "THRESHOLD", "MEASURED", "WHY"}}
		for _, s := range r.Thresholds.Scenarios {
			for _, t := range s.Thresholds {
				rows = append(rows, []string{string(t.Status), s.Name, t.Metric, report.FormatBound(s, t), report.FormatMeasured(s, t), t.Reason})
			}
		}
		writeMarkdownTable(&b, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// totalsText is a scenario's mean instructions a round in each build.
func totalsText(fc FunctionChanges) string {
	change := ""
	if fc.BaseTotal > 0 {
		change = fmt.Sprintf(" (%+.2f%%)", (fc.CandidateTotal/fc.BaseTotal-1)*100)
	}
	return fmt.Sprintf("base %s a round, candidate %s%s, over %d rounds",
		report.FormatValue(scenariofile.UnitInstructions, fc.BaseTotal),
		report.FormatValue(scenariofile.UnitInstructions, fc.CandidateTotal), change, fc.Rounds)
}

// functionTable returns the first n of a scenario's function changes as
// cells; code: the names as Markdown code.
func functionTable(fc FunctionChanges, n int, code bool) [][]string {
	rows := [][]string{{"FUNCTION", "BASE", "CANDIDATE", "CHANGE", "OF BASE TOTAL"}}
	for _, f := range fc.Functions[:min(n, len(fc.Functions))] {
		name := f.Function
		if code {
			name = "`" + name + "`"
		}
		// A mean over the rounds: a change of less than 10 a round keeps
		// its fraction (1 more in one of 3 rounds: +0.3).
		change := fmt.Sprintf("%+.1f", f.Change)
		if math.Abs(f.Change) >= 10 {
			change = textfmt.ThousandsFloat(f.Change)
			if f.Change > 0 {
				change = "+" + change
			}
		}
		rows = append(rows, []string{name, textfmt.ThousandsFloat(f.Base), textfmt.ThousandsFloat(f.Candidate),
			change, fmt.Sprintf("%+.2f%%", f.OfBaseTotal*100)})
	}
	return rows
}

// codeList is names as Markdown code, separated by commas.
func codeList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, ", ")
}

func writeMarkdownTable(b *strings.Builder, rows [][]string) {
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			fmt.Fprintf(b, "|%s\n", strings.Repeat("---|", len(row)))
		}
	}
}

func orderText(order []Side) string {
	var b strings.Builder
	for i, s := range order {
		if i > 0 && i%2 == 0 {
			b.WriteByte(' ')
		}
		if s == Base {
			b.WriteString("AB")
		} else {
			b.WriteString("BA")
		}
	}
	return b.String() + " (A: base, B: candidate)"
}

func loadsText(loads []float64) string {
	if len(loads) == 0 {
		return "unknown"
	}
	lo, hi := loads[0], loads[0]
	for _, l := range loads {
		lo, hi = min(lo, l), max(hi, l)
	}
	if lo < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f to %.2f (1-minute average)", lo, hi)
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// roundsText is "1 round" or "N rounds".
func roundsText(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}

func signedPercent(x float64) string {
	if x >= 0 {
		return "+" + percent(x)
	}
	return percent(x)
}
