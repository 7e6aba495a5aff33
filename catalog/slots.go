package catalog

// MaxSlotGroups is the most slot groups a task type's limit is split into.
// Admissions lock group rows SKIP LOCKED, so more groups mean less
// contention between concurrent admissions; fewer mean fewer rows to look
// through for a free unit. This is the one definition: the SQL runtime
// works with whatever groups a type's rows hold (a migrations test checks
// that no SQL function carries a copy of the number).
const MaxSlotGroups = 50

// SlotLayout splits a concurrency limit into slot group capacities:
// per_group = ceil(limit/MaxSlotGroups), groups = ceil(limit/per_group),
// and the last group holds the remainder, so the capacities sum exactly to
// limit and no more than MaxSlotGroups groups are used. Index i of the
// result is group i+1. A limit below 1 (unlimited) has no groups.
//
// Examples: 4 → 4×1; 100 → 50×2; 500 → 50×10; 101 → 33×3 + 1×2.
func SlotLayout(limit int) []int {
	if limit < 1 {
		return nil
	}
	per := (limit + MaxSlotGroups - 1) / MaxSlotGroups
	groups := (limit + per - 1) / per
	caps := make([]int, groups)
	for i := range caps {
		caps[i] = per
	}
	caps[groups-1] = limit - per*(groups-1)
	return caps
}

// SlotRun is a run of consecutive slot groups of one task type, groups
// First to Last, with the same capacity and the same use each. A type's
// layout is one or two runs (50 × 20, or 33 × 3 + 1 × 2) while it is idle,
// so 100,000 limited types are some 100,000 runs rather than 5,000,000
// groups; a group whose use differs from its neighbours' is a run of its
// own.
type SlotRun struct {
	TaskType string `json:"task_type"`
	First    int    `json:"first"`
	Last     int    `json:"last"`
	// Capacity is each group's capacity.
	Capacity int `json:"capacity"`
	// Used is each group's use (SlotGroup.Used).
	Used int `json:"used"`
}

// Len is the number of groups in the run.
func (r SlotRun) Len() int { return r.Last - r.First + 1 }

// Runs returns groups, sorted by task type and then group, as runs: each
// maximal sequence of consecutive groups of one type with equal capacity
// and use is one run.
func Runs(groups []SlotGroup) []SlotRun {
	var out []SlotRun
	for _, g := range groups {
		out = AppendRun(out, g)
	}
	return out
}

// AppendRun adds group g to runs: it extends the last run when g follows
// it (same type, the next group, the same capacity and use), else it
// starts a run of its own.
func AppendRun(runs []SlotRun, g SlotGroup) []SlotRun {
	if n := len(runs); n > 0 {
		r := &runs[n-1]
		if r.TaskType == g.TaskType && r.Last == g.Group-1 && r.Capacity == g.Capacity && r.Used == g.Used {
			r.Last = g.Group
			return runs
		}
	}
	return append(runs, SlotRun{TaskType: g.TaskType, First: g.Group, Last: g.Group, Capacity: g.Capacity, Used: g.Used})
}

// Groups returns the groups of runs, one per group, in the runs' order.
func Groups(runs []SlotRun) []SlotGroup {
	n := 0
	for _, r := range runs {
		n += r.Len()
	}
	return AppendGroups(make([]SlotGroup, 0, n), runs)
}

// AppendGroups appends the groups of runs to dst, one per group, and
// returns the extended slice: Groups into a buffer used again.
func AppendGroups(dst []SlotGroup, runs []SlotRun) []SlotGroup {
	for _, r := range runs {
		for g := r.First; g <= r.Last; g++ {
			dst = append(dst, SlotGroup{TaskType: r.TaskType, Group: g, Capacity: r.Capacity, Used: r.Used})
		}
	}
	return dst
}
