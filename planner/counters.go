package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// planCounters compares counters. Issued values are context; they decide
// only whether a change is destructive:
//   - deleting a counter discards its issued values: destructive;
//   - retargeting an attached counter (table, column, scope) or switching its
//     strategy re-creates its objects and backfills from the table; moving it
//     to another table or column discards the values issued: destructive;
//   - lowering start below a value already issued would rewind: destructive
//     (even then the applier never rewinds below the table's highest value);
//   - a trigger dropped or disabled by hand, or a missing unique index, is
//     drift: the counter is updated and the objects repaired.
func planCounters(desired, actual catalog.State) []plan.Change {
	var out []plan.Change
	for _, k := range diff(desired.Counters, actual.Counters) {
		c, same := k.change()
		switch {
		case k.have == nil:
			out = append(out, createCounter(c, *k.want, actual))
		case k.want == nil:
			out = append(out, deleteCounter(c, *k.have, actual.Live.Counters[c.Name]))
		default:
			live := actual.Live.Counters[c.Name]
			drift := k.have.Attached() && (!live.TriggerOK || !live.IndexOK)
			if same && !drift {
				continue
			}
			if same {
				c = k.update()
			}
			out = append(out, updateCounter(c, *k.want, *k.have, actual))
		}
	}
	return out
}

// createCounter explains the creation of counter d: an attached one
// backfills its table.
func createCounter(c plan.Change, d catalog.Counter, actual catalog.State) plan.Change {
	if d.Attached() {
		c.Reasons = append(c.Reasons, fmt.Sprintf("numbers %s.%s per scope; existing rows are backfilled from MAX(%s) under a table lock", d.Table, d.Column, d.Column))
		c.Context = attachContext(c.Context, actual.Live.Attach[d.Name])
		c.Reasons = append(c.Reasons, attachReasons(d, actual.Live.Attach[d.Name])...)
	}
	if d.Strategy == catalog.StrategyAdvisoryLock {
		c.Reasons = append(c.Reasons, "advisory_lock numbers from MAX(column): deleting a scope's newest row makes its number available again (counter_table never reissues)")
	}
	return c
}

// updateCounter explains the update of counter a into d (or the repair of
// its objects), and decides whether it is destructive.
func updateCounter(c plan.Change, d, a catalog.Counter, actual catalog.State) plan.Change {
	live := actual.Live.Counters[d.Name]
	c.Context = counterContext(live)
	if !live.TriggerOK && a.Attached() {
		c.Reasons = append(c.Reasons, "trigger missing or disabled, or made by an older pgseq (drift): re-created")
	}
	if !live.IndexOK && a.Attached() {
		c.Reasons = append(c.Reasons, "unique index on (scope…, column) missing (drift): re-created")
	}
	if catalog.NeedsBackfill(d, &a) {
		c.Context = attachContext(c.Context, actual.Live.Attach[d.Name])
		c.Reasons = append(c.Reasons, attachReasons(d, actual.Live.Attach[d.Name])...)
	}
	if a.Table != d.Table || a.Column != d.Column {
		c.Destructive = true
		c.Reasons = append(c.Reasons, fmt.Sprintf("the counter moves to another table or column: its %d issued scopes are discarded and it is backfilled from the new column", live.Scopes))
	} else if d.Attached() && (!slices.Equal(a.Scope, d.Scope) || a.Strategy != d.Strategy) {
		c.Reasons = append(c.Reasons, "scope or strategy changes: counter rows are rebuilt from the table under a table lock")
	}
	if d.Start < a.Start && live.MaxValue >= d.Start {
		c.Destructive = true
		c.Reasons = append(c.Reasons, fmt.Sprintf("start lowered to %d below the highest value issued (%d): scopes would be rewound, never below the highest value present in the table", d.Start, live.MaxValue))
	} else if d.Start > a.Start && live.MaxValue > 0 && live.MaxValue < d.Start-1 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("start raised: scopes below %d jump to it", d.Start))
	}
	return c
}

// deleteCounter explains the deletion of counter a: always destructive,
// its issued values are lost.
func deleteCounter(c plan.Change, a catalog.Counter, live catalog.CounterLive) plan.Change {
	c.Context = counterContext(live)
	c.Destructive = true
	c.Reasons = append(c.Reasons, fmt.Sprintf("the counter's issued values (max %d) are discarded", live.MaxValue))
	if a.Attached() {
		c.Reasons = append(c.Reasons, fmt.Sprintf("its trigger on %s is dropped; the rows keep their numbers", a.Table))
	}
	return c
}

// attachReasons says what a backfill will do with rows that have no number
// yet, or cannot have one (a NULL scope: the apply refuses).
func attachReasons(d catalog.Counter, f catalog.AttachFacts) []string {
	var out []string
	if f.Unnumbered > 0 {
		where := "after the table's highest number"
		if len(d.Scope) > 0 {
			where = "after their scope's highest number (from start in a scope with none)"
		}
		out = append(out, fmt.Sprintf("%d %s without a number (%s is NULL) are numbered %s, in primary-key order",
			f.Unnumbered, textfmt.Word(f.Unnumbered, "row", "rows"), d.Column, where))
	}
	if f.NullScope > 0 {
		out = append(out, fmt.Sprintf("%d %s a NULL scope (%s): apply refuses until they have one or are deleted",
			f.NullScope, map[bool]string{true: "row has", false: "rows have"}[f.NullScope == 1], strings.Join(d.Scope, ", ")))
	}
	return out
}

// attachContext adds the count of rows a backfill numbers to a change's
// context.
func attachContext(c *plan.Context, f catalog.AttachFacts) *plan.Context {
	if f.Unnumbered == 0 {
		return c
	}
	if c == nil {
		c = &plan.Context{}
	}
	n := f.Unnumbered
	c.Unnumbered = &n
	return c
}

func counterContext(l catalog.CounterLive) *plan.Context {
	scopes, maxValue := l.Scopes, l.MaxValue
	return &plan.Context{Scopes: &scopes, MaxValue: &maxValue}
}
