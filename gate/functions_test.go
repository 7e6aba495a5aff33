package gate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// Where the instructions changed: each function's mean a round in each
// build, the largest changes (either way) first, ties by name, unchanged
// functions left out, at most TopFunctions.
func TestWhereChanged(t *testing.T) {
	t.Parallel()
	many := func(base bool) map[string]uint64 {
		m := map[string]uint64{}
		for i := range 12 {
			m[fmt.Sprintf("???:f%02d", i)] = 1000
			if !base {
				m[fmt.Sprintf("???:f%02d", i)] = uint64(1000 + 10*(i+1))
			}
		}
		return m
	}
	for _, tc := range []struct {
		name            string
		base, candidate []Profile
		want            FunctionChanges
	}{{
		name: "largest first, ties by name",
		base: []Profile{
			{Instructions: 1000, Functions: map[string]uint64{"???:ExecScan": 600, "???:ExecAgg": 300, "???:same": 100}},
			{Instructions: 1200, Functions: map[string]uint64{"???:ExecScan": 700, "???:ExecAgg": 400, "???:same": 100}},
		},
		candidate: []Profile{
			// ExecScan −150 a round, ExecHashJoin +150 (the candidate's
			// only), ExecAgg +25, same unchanged.
			{Instructions: 1000, Functions: map[string]uint64{"???:ExecScan": 450, "???:ExecHashJoin": 100, "???:ExecAgg": 350, "???:same": 100}},
			{Instructions: 1250, Functions: map[string]uint64{"???:ExecScan": 550, "???:ExecHashJoin": 200, "???:ExecAgg": 400, "???:same": 100}},
		},
		want: FunctionChanges{Scenario: "s", Rounds: 2, BaseTotal: 1100, CandidateTotal: 1125, Functions: []FunctionChange{
			{Function: "???:ExecHashJoin", Base: 0, Candidate: 150, Change: 150, OfBaseTotal: 150.0 / 1100},
			{Function: "???:ExecScan", Base: 650, Candidate: 500, Change: -150, OfBaseTotal: -150.0 / 1100},
			{Function: "???:ExecAgg", Base: 350, Candidate: 375, Change: 25, OfBaseTotal: 25.0 / 1100},
		}},
	}, {
		name:      "the top ten",
		base:      []Profile{{Instructions: 12_000, Functions: many(true)}},
		candidate: []Profile{{Instructions: 12_780, Functions: many(false)}},
		want: FunctionChanges{Scenario: "s", Rounds: 1, BaseTotal: 12_000, CandidateTotal: 12_780, Functions: func() []FunctionChange {
			var out []FunctionChange
			for i := 11; i >= 2; i-- {
				c := float64(10 * (i + 1))
				out = append(out, FunctionChange{Function: fmt.Sprintf("???:f%02d", i), Base: 1000, Candidate: 1000 + c, Change: c, OfBaseTotal: c / 12_000})
			}
			return out
		}()},
	}, {
		name:      "nothing changed",
		base:      []Profile{{Instructions: 5, Functions: map[string]uint64{"???:a": 5}}},
		candidate: []Profile{{Instructions: 5, Functions: map[string]uint64{"???:a": 5, "???:zero": 0}}},
		want:      FunctionChanges{Scenario: "s", Rounds: 1, BaseTotal: 5, CandidateTotal: 5},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := WhereChanged("s", tc.base, tc.candidate)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}

	_, err := WhereChanged("s", []Profile{{}}, nil)
	require.ErrorContains(t, err, "scenario s: 1 base and 0 candidate counts")
}

// countedReport is a bench ab --instructions of two scenarios over 3
// rounds: in one, the candidate hashes where the base scanned; in the
// other, nothing changed.
func countedReport(t *testing.T) *Report {
	t.Helper()
	rows := []Row{{
		Scenario: "baseline", Metric: ServerInstructions, Unit: scenariofile.UnitInstructions,
		Base:      []float64{7.61e9, 7.60e9, 7.62e9},
		Candidate: []float64{8.16e9, 8.15e9, 8.17e9},
	}, {
		Scenario: "baseline", Metric: "throughput", Unit: scenariofile.UnitTasksPerSec, HigherIsBetter: true,
		Base: []float64{410, 395, 420}, Candidate: []float64{388, 401, 379},
	}, {
		Scenario: "limited", Metric: ServerInstructions, Unit: scenariofile.UnitInstructions,
		Base: []float64{2.1e9, 2.1e9, 2.1e9}, Candidate: []float64{2.1e9, 2.1e9, 2.1e9},
	}}
	for i := range rows {
		rows[i].Gated, _ = Gated(scenariofile.WorkloadDrain, rows[i].Metric)
	}
	rows = Judge(rows, Options{Counted: true})
	profile := func(total uint64, fns map[string]uint64) Profile {
		var sum uint64
		for _, n := range fns {
			sum += n
		}
		fns["???:???"] = total - sum
		return Profile{Instructions: total, Functions: fns}
	}
	var base, cand []Profile
	for i, shift := range []uint64{0, 10_000_000, 20_000_000} {
		base = append(base, profile(7_610_000_000-shift+uint64(i)*10_000_000, map[string]uint64{
			"???:ExecScan": 900_000_000, "???:heap_getnextslot": 400_000_000 - shift, "???:LWLockAcquire": 120_000_000 + uint64(i),
			"???:ExecHashJoin": 0, "./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:memcpy@GLIBC_2.2.5": 50_000_000,
		}))
		cand = append(cand, profile(8_160_000_000-shift+uint64(i)*10_000_000, map[string]uint64{
			"???:ExecScan": 700_000_000, "???:heap_getnextslot": 380_000_000 - shift, "???:LWLockAcquire": 120_000_001 + uint64(1-min(i, 1)),
			"???:ExecHashJoin": 610_000_000, "???:ExecHashTableInsert": 150_000_000,
			"./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:memcpy@GLIBC_2.2.5": 60_000_000, "???:tag_hash": 90_000_000,
		}))
	}
	changed, err := WhereChanged("baseline", base, cand)
	require.NoError(t, err)
	same := []Profile{{Instructions: 2_100_000_000, Functions: map[string]uint64{"???:ExecScan": 2_100_000_000}}}
	unchanged, err := WhereChanged("limited", append(same, same[0], same[0]), append(same, same[0], same[0]))
	require.NoError(t, err)
	return &Report{
		FormatVersion: ReportFormatVersion, StartedAt: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Command: []string{"pgseq", "bench", "ab", "--instructions", "--base", "/tmp/pgseq-base", "scenarios/instructions/"},
		Base:    Build{Path: "/tmp/pgseq-base", Version: "pgseq v0.9.0"}, Candidate: Build{Path: "/tmp/pgseq", Version: "pgseq v0.9.0-3-gabcdef"},
		Order: []Side{Base, Candidate, Candidate}, Instructions: true,
		Environment: report.Environment{Postgres: "PostgreSQL 15.8 (Debian 15.8-0+deb12u1)", NumCPU: 2, CPUModel: "test CPU"},
		Loads:       []float64{3.1, 4.2, 5.3, 4.8, 3.9, 3.5}, Alpha: DefaultAlpha,
		Rows: rows, Functions: []FunctionChanges{changed, unchanged},
	}
}

// A counted report says where the instructions changed: in ab.md the top
// ten functions of each scenario, in the terminal the top five.
func TestCountedReportGolden(t *testing.T) {
	t.Parallel()
	r := countedReport(t)
	var text, md bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	require.NoError(t, r.WriteMarkdown(&md))
	golden.Check(t, filepath.Join("testdata", "ab-instructions.txt"), text.String())
	golden.Check(t, filepath.Join("testdata", "ab-instructions.md"), md.String())
}
