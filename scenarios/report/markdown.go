package report

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// WriteJSON writes the result document, indented, its command line with
// the passwords masked (RedactCommand), also when r was not made by
// scenarios.RunSuite.
func (r *SuiteResult) WriteJSON(w io.Writer) error {
	redacted := *r
	redacted.Command = RedactCommand(r.Command)
	return WriteJSON(w, &redacted)
}

// Counts returns how many thresholds were met, missed and inconclusive.
func (r *SuiteResult) Counts() (met, missed, inconclusive int) {
	for _, s := range r.Scenarios {
		for _, t := range s.Thresholds {
			switch t.Status {
			case StatusMet:
				met++
			case StatusMissed:
				missed++
			default:
				inconclusive++
			}
		}
	}
	return met, missed, inconclusive
}

// WriteMarkdown renders the result for a pull-request comment: the verdict,
// every threshold, each scenario's metrics, and the charts (paths relative
// to the Markdown file). The explain workload's plans are linked under
// plans/, where the CLI stores them.
func (r *SuiteResult) WriteMarkdown(w io.Writer, charts []string) error {
	var b strings.Builder
	met, missed, inconclusive := r.Counts()
	fmt.Fprintf(&b, "# pgseq benchmark: %s\n\n", r.Verdict)
	fmt.Fprintf(&b, "%s, %s: %d met, %d missed, %d inconclusive. ",
		textfmt.Plural(len(r.Scenarios), "scenario"), textfmt.Plural(met+missed+inconclusive, "threshold"), met, missed, inconclusive)
	if r.Quick {
		b.WriteString("Quick sizes (a smoke run: the figures are indicative only). ")
	}
	fmt.Fprintf(&b, "Ran %s in %.0f s.\n\n", r.StartedAt.Format("2006-01-02T15:04:05Z"), r.Seconds)
	if len(r.Command) > 0 {
		fmt.Fprintf(&b, "Reproduce: `%s`\n\n", strings.Join(RedactCommand(r.Command), " "))
	}
	e := r.Environment
	fmt.Fprintf(&b, "%s; %d CPUs (%s); %s, GOMAXPROCS %d. Load average %.2f before, %.2f after. Server settings: %s.\n\n",
		e.Postgres, e.NumCPU, e.CPUModel, e.GoVersion, e.GOMAXPROCS, r.LoadBefore, r.LoadAfter, SettingsLine(e.PostgresSettings))

	b.WriteString("## Thresholds\n\n")
	var levels []float64
	for _, s := range r.Scenarios {
		for _, t := range s.Thresholds {
			if m := s.Metric(t.Metric); m != nil && (t.Low != 0 || t.High != 0) {
				levels = append(levels, m.Level)
			}
		}
	}
	level := ""
	if l := stats.FormatLevels(levels); l != "" {
		level = " (distribution-free, from the rounds' order statistics: its level follows from the number of rounds, " + l + " in this run)"
	}
	fmt.Fprintf(&b, "Ratios and throughputs are judged on the confidence interval of their median over the rounds%s. MET: the whole interval passes; MISSED: the whole interval fails; INCONCLUSIVE: it straddles the bound, the run was too noisy to decide. Percentiles need enough samples (100 for a p99).\n\n", level)
	b.WriteString("| scenario | metric | threshold | measured | interval | n | status | declared |\n|---|---|---|---:|---|---:|---|---|\n")
	for _, s := range r.Scenarios {
		for _, t := range s.Thresholds {
			m := s.Metric(t.Metric)
			unit := unitOf(s, t.Metric)
			interval := ""
			if m != nil && (t.Low != 0 || t.High != 0) {
				interval = formatInterval(unit, t.Low, t.High, m.Level)
			}
			measured := FormatValue(unit, t.Value)
			if m == nil {
				measured = "–"
			}
			status := string(t.Status)
			if t.Status != StatusMet {
				status = "**" + status + "**"
			}
			if t.Reason != "" {
				status += " (" + t.Reason + ")"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %d | %s | %s |\n",
				s.Name, t.Metric, formatBound(unit, t), measured, interval, t.N, status, t.Where)
		}
	}
	b.WriteString("\n")

	if len(charts) > 0 {
		b.WriteString("## Charts\n\n")
		for _, c := range charts {
			if strings.HasSuffix(c, ".png") {
				name := strings.TrimSuffix(path.Base(c), ".png")
				fmt.Fprintf(&b, "![%s](%s)\n\n", name, c)
			}
		}
	}

	b.WriteString("## Scenarios\n\n")
	for _, s := range r.Scenarios {
		fmt.Fprintf(&b, "### %s\n\n", s.Name)
		desc := s.Description
		if desc == "" {
			desc = string(s.Workload)
		}
		fmt.Fprintf(&b, "%s — workload `%s`", desc, s.Workload)
		if s.Against != "" {
			fmt.Fprintf(&b, ", measured against `%s` in the same rounds", s.Against)
		}
		fmt.Fprintf(&b, "; %s; declared in `%s`.\n\n", SizeLine(s.Workload, s.Size), s.File)
		b.WriteString("| metric | value | interval | n | per round |\n|---|---:|---|---:|---|\n")
		for _, m := range s.Metrics {
			interval := ""
			if m.Level > 0 {
				interval = formatInterval(m.Unit, m.Low, m.High, m.Level)
			}
			var rounds []string
			for _, v := range m.Samples {
				rounds = append(rounds, FormatValue(m.Unit, v))
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %s |\n", m.Name, FormatValue(m.Unit, m.Value), interval, m.N, strings.Join(rounds, ", "))
		}
		b.WriteString("\n")
		if s.Soak != nil {
			writeSoakMarkdown(&b, s.Soak)
		}
		if s.Scale != nil {
			writeScaleMarkdown(&b, s.Scale)
		}
		if len(s.Plans) > 0 {
			b.WriteString("| function | statement | indexes | seq scans of tasks | rows examined | buffers | ms | plan |\n|---|---|---|---:|---:|---:|---:|---|\n")
			for _, p := range s.Plans {
				fmt.Fprintf(&b, "| `%s` | `%s` | %s | %d | %s | %s | %.2f | [json](%s) |\n", p.Function, oneLine(p.Statement, 60),
					strings.Join(p.Indexes, ", "), p.SeqScans, textfmt.ThousandsFloat(p.RowsExamined), textfmt.Thousands(p.Buffers), p.ExecutionMS, path.Join("plans", p.File))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SizeLine says how big a scenario ran, in a workload's terms: "200,000
// tasks per run, 5 rounds, 1 worker × 4 handlers, batch 200, …".
func SizeLine(w scenariofile.Workload, s scenariofile.Size) string {
	switch w {
	case scenariofile.WorkloadDrain:
		return fmt.Sprintf("%s per run, %s, %s × %s, batch %d, warm-up %s",
			textfmt.Plural(s.Tasks, "task"), textfmt.Plural(s.Rounds, "round"), textfmt.Plural(s.Workers, "worker"), textfmt.Plural(s.PoolSize, "handler"),
			s.BatchSize, textfmt.Plural(s.Warmup, "task"))
	case scenariofile.WorkloadExplain:
		return fmt.Sprintf("%s pending", textfmt.Plural(s.Tasks, "task"))
	case scenariofile.WorkloadCounters:
		clients := textfmt.Plural(s.Clients, "client")
		if s.Connections > 0 {
			clients += " sharing " + textfmt.Plural(s.Connections, "connection")
		}
		return fmt.Sprintf("%s, %s, %s per run", clients, textfmt.Plural(s.Rounds, "round"), s.Duration)
	case scenariofile.WorkloadSoak:
		return soakSizeLine(s)
	case scenariofile.WorkloadScale:
		return scaleSizeLine(s)
	}
	return ""
}

// oneLine squeezes a statement onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
