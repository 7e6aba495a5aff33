package planner

import (
	"fmt"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// keyContext adds to c, the change of a task type that exists in the
// database (have; want is the configuration's, nil when the type is
// deleted), the figures of its partition keys with work (keys: the
// database's, by units in use) and the reasons they call for. A type
// neither partitioned nor with keys holding units gets nothing, so plans
// without per-key limits are what they were.
//
// Like the type's limit (slotReasons), lowering the per-key limit says
// how many keys hold more units than the new one: those drain, admitting
// no task until fewer than the new limit of their units are in use.
func keyContext(c *plan.Change, want, have *catalog.TaskType, keys catalog.KeyUses) {
	if c.Context == nil {
		c.Context = &plan.Context{}
	}
	n := keys.Total()
	if have.Partitioned() || n > 0 {
		c.Context.Keys = &n
	}
	if have.Partitioned() {
		at := keys.AtLeast(have.Partition.Concurrency)
		c.Context.KeysAtLimit = &at
	}
	if want == nil {
		return
	}
	switch {
	case want.Partitioned() && have.Partitioned():
		before, after := have.Partition.Concurrency, want.Partition.Concurrency
		over := keys.Above(after)
		if after < before || over > 0 {
			c.Context.KeysOverLimit = &over
		}
		switch {
		case over > 0 && after < before:
			c.Reasons = append(c.Reasons, fmt.Sprintf("%s %s more units than the new per-key limit of %d: draining; each admits no task until fewer than %d of its units are in use",
				textfmt.Plural(over, "partition key"), textfmt.Word(over, "holds", "hold"), after, after))
		case over > 0:
			c.Reasons = append(c.Reasons, keysDraining(over, after))
		case after > before && *c.Context.KeysAtLimit > 0:
			at := *c.Context.KeysAtLimit
			c.Reasons = append(c.Reasons, fmt.Sprintf("%s at the per-key limit of %d can admit more of %s waiting tasks at the apply, up to %d running each",
				textfmt.Plural(at, "partition key"), before, textfmt.Word(at, "its", "their"), after))
		}
		if have.Partition.By != want.Partition.By && n > 0 {
			c.Reasons = append(c.Reasons, "partition.by changed: tasks enqueued before the apply keep their keys")
		}
	case want.Partitioned():
		if over := keys.Above(want.Partition.Concurrency); over > 0 {
			// Units still held from a partition block removed before
			// count against the one declared again.
			c.Context.KeysOverLimit = &over
			c.Reasons = append(c.Reasons, keysDraining(over, want.Partition.Concurrency))
		}
		c.Reasons = append(c.Reasons, "per-key limit added: tasks enqueued before the apply belong to no key; those enqueued after wait for a unit of theirs")
	case have.Partitioned():
		if n > 0 {
			c.Reasons = append(c.Reasons, fmt.Sprintf("per-key limit removed: the waiting tasks of its %s go where the type sends them at the apply; running ones keep their key's unit until they end",
				textfmt.Plural(n, "partition key")))
		}
	}
}

// keysDraining says that over keys are still over a per-key limit of
// limit: a plan's reason, or warning when nothing changes.
func keysDraining(over, limit int) string {
	return fmt.Sprintf("%s still draining (holding more units than the per-key limit of %d)", textfmt.Plural(over, "partition key"), limit)
}

// warnKeysDraining adds to p a warning when want, a task type the plan
// leaves as it is, has keys over its per-key limit: they drain after a
// lowered limit, as slot groups do.
func warnKeysDraining(p *plan.Plan, address string, want *catalog.TaskType, keys catalog.KeyUses) {
	if !want.Partitioned() || len(keys) == 0 {
		return
	}
	if over := keys.Above(want.Partition.Concurrency); over > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %s", address, keysDraining(over, want.Partition.Concurrency)))
	}
}
