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
