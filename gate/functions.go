package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Profile is what the server executed for one build's run of a scenario
// in one round of bench ab --instructions: its instructions in total (the
// count judged), and per function ("???:ExecScan": servercount.Count).
type Profile struct {
	Instructions uint64
	Functions    map[string]uint64
}

// TopFunctions is how many functions "Where the instructions changed"
// names for each scenario in ab.md; the terminal shows TopFunctionsText.
const (
	TopFunctions     = 10
	TopFunctionsText = 5
)

// FunctionChanges says where one scenario's instructions changed: the
// functions whose mean count per round changed most from the base to the
// candidate.
type FunctionChanges struct {
	Scenario string `json:"scenario"`
	// Rounds is the judged rounds the means are taken over (not the
	// warm-up).
	Rounds int `json:"rounds"`
	// BaseTotal and CandidateTotal are each build's mean instructions a
	// round.
	BaseTotal      float64 `json:"base_total"`
	CandidateTotal float64 `json:"candidate_total"`
	// Functions are the TopFunctions largest changes, the largest (in
	// absolute value) first, ties by name; functions whose count did not
	// change are left out.
	Functions []FunctionChange `json:"functions"`
}

// FunctionChange is one function's mean instructions a round in each
// build.
type FunctionChange struct {
	Function  string  `json:"function"`
	Base      float64 `json:"base"`
	Candidate float64 `json:"candidate"`
	// Change is Candidate − Base; OfBaseTotal is Change as a fraction of
	// the base's mean total (BaseTotal).
	Change      float64 `json:"change"`
	OfBaseTotal float64 `json:"of_base_total"`
}

// WhereChanged compares one scenario's profiles of the same rounds, base
// and candidate, one per round each: each function's mean a round, and
// the TopFunctions whose mean changed most.
func WhereChanged(scenario string, base, candidate []Profile) (FunctionChanges, error) {
	if len(base) != len(candidate) || len(base) == 0 {
		return FunctionChanges{}, fmt.Errorf("scenario %s: %d base and %d candidate counts: one of each a round is needed", scenario, len(base), len(candidate))
	}
	n := float64(len(base))
	baseSum, baseTotal := sumProfiles(base)
	candSum, candTotal := sumProfiles(candidate)
	type diff struct {
		name       string
		base, cand uint64
		delta      int64 // cand − base, over all the rounds
	}
	var diffs []diff
	for name, b := range baseSum {
		if c := candSum[name]; c != b {
			diffs = append(diffs, diff{name, b, c, int64(c) - int64(b)})
		}
	}
	for name, c := range candSum {
		if _, ok := baseSum[name]; !ok && c != 0 {
			diffs = append(diffs, diff{name, 0, c, int64(c)})
		}
	}
	slices.SortFunc(diffs, func(a, b diff) int {
		if x := cmp.Compare(absInt(b.delta), absInt(a.delta)); x != 0 {
			return x
		}
		return strings.Compare(a.name, b.name)
	})
	fc := FunctionChanges{Scenario: scenario, Rounds: len(base),
		BaseTotal: float64(baseTotal) / n, CandidateTotal: float64(candTotal) / n}
	for _, d := range diffs[:min(len(diffs), TopFunctions)] {
		change := float64(d.delta) / n
		of := 0.0
		if fc.BaseTotal > 0 {
			of = change / fc.BaseTotal
		}
		fc.Functions = append(fc.Functions, FunctionChange{Function: d.name,
			Base: float64(d.base) / n, Candidate: float64(d.cand) / n, Change: change, OfBaseTotal: of})
	}
	return fc, nil
}

// sumProfiles sums profiles' functions, and their totals.
func sumProfiles(profiles []Profile) (map[string]uint64, uint64) {
	sum := map[string]uint64{}
	var total uint64
	for _, p := range profiles {
		total += p.Instructions
		for name, n := range p.Functions {
			sum[name] += n
		}
	}
	return sum, total
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
