package planner

import "github.com/pgseq/pgseq/catalog"

// MaxSlotGroups is the most slot groups a task type's limit is split into
// (catalog.MaxSlotGroups).
const MaxSlotGroups = catalog.MaxSlotGroups

// SlotLayout splits a concurrency limit into slot group capacities that sum
// exactly to limit; index i is group i+1. It is catalog.SlotLayout, which
// package plan also uses to check the layouts of a saved plan.
//
// Examples: 4 → 4×1; 100 → 50×2; 500 → 50×10; 101 → 33×3 + 1×2.
func SlotLayout(limit int) []int { return catalog.SlotLayout(limit) }
