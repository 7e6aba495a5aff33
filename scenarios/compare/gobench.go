package compare

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// WriteGoBench writes a run in the Go benchmark format
// (https://go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md),
// so that benchstat and the other golang.org/x/perf tools read it.
//
// Configuration lines come first: goos, goarch, pkg, cpu, pgseq-quick and
// pgseq-postgres (the server's name and major version). benchstat puts
// results whose configuration differs in different tables, so only what
// makes runs incomparable is configuration (compare two majors with
// benchstat -ignore pgseq-postgres); the rest of the environment (Go
// version, CPU count, server settings, start time, verdict) follows as
// "# " comment lines, which the format ignores. Then a Unit line per unit
// says which way is better (and assume=exact for the plan's shape), and
// for each scenario and round one line
//
//	BenchmarkDrain/enabled 1 16000 tasks/s 0.8 ratio 0.0012 claim-p99-sec …
//
// carries every metric with a sample for that round. Each metric of a
// scenario has its own unit (benchstat compares values unit by unit):
// throughputs keep theirs (tasks/s, inserts/s), throughput_ratio is
// "ratio", durations are "<metric>-sec" and other metrics are named after
// themselves (seq-scans, rows-examined). A metric measured once appears
// on the first round's line only.
func WriteGoBench(w io.Writer, r *report.SuiteResult) error {
	var b strings.Builder
	e := r.Environment
	line := func(prefix, key, value string) {
		value = strings.Join(strings.Fields(value), " ")
		if value != "" {
			fmt.Fprintf(&b, "%s%s: %s\n", prefix, key, value)
		}
	}
	config := func(key, value string) { line("", key, value) }
	comment := func(key, value string) { line("# ", key, value) }
	config("goos", e.OS)
	config("goarch", e.Arch)
	config("pkg", "github.com/pgseq/pgseq/scenarios")
	config("cpu", e.CPUModel)
	config("pgseq-quick", strconv.FormatBool(r.Quick))
	config("pgseq-postgres", goBenchServerMajor(e.Postgres))

	comment("postgres", e.Postgres)
	comment("go", e.GoVersion)
	if e.NumCPU > 0 {
		comment("num_cpu", strconv.Itoa(e.NumCPU))
	}
	if e.GOMAXPROCS > 0 {
		comment("gomaxprocs", strconv.Itoa(e.GOMAXPROCS))
	}
	settings := make([]string, 0, len(e.PostgresSettings))
	for k := range e.PostgresSettings {
		settings = append(settings, k)
	}
	slices.Sort(settings)
	for _, k := range settings {
		comment(k, e.PostgresSettings[k])
	}
	if !r.StartedAt.IsZero() {
		comment("started", r.StartedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	comment("result_format", r.FormatVersion)
	comment("verdict", string(r.Verdict))

	// Unit metadata, once per unit (the first metric to use it decides).
	var units []string
	better := map[string]string{}
	exact := map[string]bool{}
	for _, s := range r.Scenarios {
		for i := range s.Metrics {
			m := &s.Metrics[i]
			u := goBenchUnit(m)
			if _, seen := better[u]; seen {
				continue
			}
			units = append(units, u)
			better[u] = "lower"
			if m.HigherIsBetter {
				better[u] = "higher"
			}
			exact[u] = cmpDeterministicUnit(m.Unit)
		}
	}
	if len(units) > 0 {
		b.WriteString("\n")
	}
	for _, u := range units {
		fmt.Fprintf(&b, "Unit %s better=%s", u, better[u])
		if exact[u] {
			b.WriteString(" assume=exact")
		}
		b.WriteString("\n")
	}
	if len(r.Scenarios) > 0 {
		b.WriteString("\n")
	}

	for _, s := range r.Scenarios {
		name := goBenchName(s)
		rounds := 0
		for i := range s.Metrics {
			rounds = max(rounds, len(cmpSamples(&s.Metrics[i])))
		}
		for round := range rounds {
			b.WriteString(name + " 1")
			for i := range s.Metrics {
				m := &s.Metrics[i]
				samples := cmpSamples(m)
				if round < len(samples) {
					fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(samples[round], 'g', -1, 64), goBenchUnit(m))
				}
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// goBenchName is a scenario's benchmark name: Benchmark, its workload
// capitalised, a slash and its name with spaces replaced. A final -N,
// which benchstat would take for GOMAXPROCS, becomes _N.
func goBenchName(s report.ScenarioResult) string {
	w := []rune(string(s.Workload))
	if len(w) > 0 {
		w[0] = unicode.ToUpper(w[0])
	}
	name := strings.Join(strings.Fields(s.Name), "_")
	if loc := goBenchProcsSuffix.FindStringIndex(name); loc != nil {
		name = name[:loc[0]] + "_" + name[loc[0]+1:]
	}
	return "Benchmark" + string(w) + "/" + name
}

var goBenchProcsSuffix = regexp.MustCompile(`-[0-9]+$`)

// goBenchServerMajor returns the name and major version of a server
// version string: "PostgreSQL 17.4 on x86_64…" → "PostgreSQL 17".
func goBenchServerMajor(version string) string {
	major, _, _ := strings.Cut(report.FirstWords(version, 2), ".")
	return major
}

// goBenchUnit is the unit a metric's values are written in.
func goBenchUnit(m *report.MetricResult) string {
	dashed := strings.ReplaceAll(m.Name, "_", "-")
	switch {
	case m.Name == "throughput" && (m.Unit == scenariofile.UnitTasksPerSec || m.Unit == scenariofile.UnitInsertsPerSec):
		return string(m.Unit)
	case m.Name == "throughput_ratio":
		return "ratio"
	case m.Unit == scenariofile.UnitSeconds:
		return dashed + "-sec"
	}
	return strings.Join(strings.Fields(dashed), "-")
}
