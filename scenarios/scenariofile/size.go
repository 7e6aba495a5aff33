package scenariofile

import "time"

// Workload defaults: the sizes a scenario gets for the fields it leaves out.
var (
	// A drain's batch_size defaults to its queue's.
	drainDefaults    = Size{Tasks: 200_000, Rounds: 3, Workers: 1, PoolSize: 4}
	explainDefaults  = Size{Tasks: 1_000_000, Rounds: 1}
	countersDefaults = Size{Rounds: 6, Clients: 8, Duration: time.Second}
	// A soak runs once; its batch_size defaults to its queue's.
	soakDefaults = Size{Rounds: 1, Workers: 1, PoolSize: 4, Duration: 10 * time.Minute, Rate: 500}
	// A scale run applies once; its rounds are no-op plans.
	scaleDefaults = Size{Rounds: 3, TaskTypes: 10_000, Limit: 1000}
)

// EffectiveSize is the size sc runs at: the workload's defaults, the
// scenario's size, then with quick its quick size.
func EffectiveSize(sc Scenario, quick bool) Size {
	var s Size
	switch sc.Workload {
	case WorkloadDrain:
		s = drainDefaults
	case WorkloadExplain:
		s = explainDefaults
	case WorkloadCounters:
		s = countersDefaults
	case WorkloadSoak:
		s = soakDefaults
	case WorkloadScale:
		s = scaleDefaults
	}
	s = s.Merge(sc.Size)
	if quick {
		s = s.Merge(sc.Quick)
	}
	if sc.Workload == WorkloadDrain && s.Warmup == 0 {
		s.Warmup = min(s.Tasks, 20_000)
	}
	return s
}
