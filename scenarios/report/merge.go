package report

import (
	"fmt"

	"github.com/pgseq/pgseq/scenarios/scenariofile"
	"github.com/pgseq/pgseq/scenarios/stats"
)

// MergeRounds merges runs of the same scenarios (each run one or more
// rounds, as bench ab makes them: one invocation per round) into one
// result, as if its rounds had run in one invocation, and judges the
// thresholds of scs on it. A per-round metric gets every run's samples,
// their median and interval; a percentile (pooled in one run) becomes the
// median of the runs' percentiles, with every sample counted in N; a count
// such as running_max keeps its largest value. The scenarios named in
// firstOnly are merged from the first run alone (bench ab runs the explain
// scenarios in its first round only); any other scenario missing from a
// run is an error: the runs did not run the same scenarios.
func MergeRounds(scs []scenariofile.Scenario, runs []*SuiteResult, firstOnly map[string]bool) (*SuiteResult, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("merging rounds: no runs")
	}
	first := runs[0]
	out := *first
	out.Scenarios = nil
	out.Seconds = 0
	out.LoadAfter = runs[len(runs)-1].LoadAfter
	for _, r := range runs {
		out.Seconds += r.Seconds
	}
	byName := map[string]scenariofile.Scenario{}
	for _, sc := range scs {
		byName[sc.Name] = sc
	}
	for _, s := range first.Scenarios {
		merged := s
		merged.Runs, merged.Metrics = nil, nil
		from := runs
		if firstOnly[s.Name] {
			from = runs[:1]
		}
		for _, m := range s.Metrics {
			var samples []float64
			n := 0
			largest := 0.0
			for i, r := range from {
				rs := r.Scenario(s.Name)
				if rs == nil {
					return nil, fmt.Errorf("merging rounds: run %d has no scenario %q", i+1, s.Name)
				}
				rm := rs.Metric(m.Name)
				if rm == nil {
					continue
				}
				samples = append(samples, rm.Samples...)
				if len(rm.Samples) == 0 && rm.N > 0 {
					samples = append(samples, rm.Value)
				}
				n += rm.N
				largest = max(largest, rm.Value)
			}
			mm := m
			mm.Histogram = nil
			mm.Samples = samples
			switch {
			case isPerRound(s.Workload, m.Name):
				pr := PerRoundMetric(s.Workload, m.Name, samples)
				mm.Value, mm.N, mm.Low, mm.High, mm.Level = pr.Value, pr.N, pr.Low, pr.High, pr.Level
			case m.Name == "running_max":
				mm.Value, mm.N = largest, n
			default:
				mm.Value, mm.N = stats.Median(samples), n
			}
			merged.Metrics = append(merged.Metrics, mm)
		}
		merged.Thresholds = nil
		if sc, ok := byName[s.Name]; ok {
			merged.Thresholds = JudgeAll(sc, &merged)
		}
		out.Scenarios = append(out.Scenarios, merged)
	}
	out.Verdict = Verdict(out.Scenarios)
	return &out, nil
}
