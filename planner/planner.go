package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// Options are the inputs to Plan besides the two states.
type Options struct {
	// Schema is the pgseq schema the plan is for.
	Schema string
	// Applied is the managed state the last apply left, as it recorded it
	// (inspect.ReadApplied), or nil when none was recorded. When set, the
	// plan's Drift lists how the actual state differs from it (see Drift).
	Applied *catalog.State
}

// Plan returns the changes that make actual match desired. desired comes
// from the configuration (no slots, no live values); actual from the
// database. Live values (slot usage, running and unfinished counts) only add
// context and decide whether a change is destructive; they never cause one.
// With opts.Applied, the plan also lists the drift: what changed outside
// pgseq since the last apply. It is for display and changes no change.
func Plan(desired, actual catalog.State, opts Options) *plan.Plan {
	desired = desired.Sorted()
	actual = actual.Sorted()

	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Schema:        opts.Schema,
		Fingerprint:   plan.Fingerprint(actual),
		Changes:       []plan.Change{},
	}
	p.Changes = append(p.Changes, planQueues(desired, actual)...)
	p.Changes = append(p.Changes, planTasks(desired, actual, p)...)
	p.Changes = append(p.Changes, planCounters(desired, actual)...)
	p.Changes = append(p.Changes, planAccess(desired, actual)...)
	p.Count()
	if opts.Applied != nil {
		p.Drift = Drift(*opts.Applied, actual)
	}
	return p
}

// Address returns the display address of an object: `queue "default"`
// (plan.Address).
func Address(kind, name string) string { return plan.Address(kind, name) }

// planQueues plans the queues. Deleting a queue deletes its tasks: with
// unfinished tasks that is destructive.
func planQueues(desired, actual catalog.State) []plan.Change {
	var out []plan.Change
	for _, q := range diff(desired.Queues, actual.Queues) {
		c, same := q.change()
		if same {
			continue
		}
		if c.Action == plan.Delete {
			n := actual.Live.Unfinished[c.Name]
			c.Context = &plan.Context{Unfinished: &n}
			if n > 0 {
				c.Destructive = true
				c.Reasons = append(c.Reasons, fmt.Sprintf("%s would be deleted with the queue", textfmt.Plural(n, "unfinished task")))
			}
		}
		out = append(out, c)
	}
	return out
}

// planTasks plans the task types and their slot groups: a type whose
// groups do not fit its limit is updated even when its settings are equal.
// Types whose groups still drain after a lower limit, and slot groups of
// types pgseq does not manage, are warnings.
func planTasks(desired, actual catalog.State, p *plan.Plan) []plan.Change {
	slots := slotsByType(actual.Slots)
	layouts := map[int][]int{}
	layout := func(limit int) []int {
		l, ok := layouts[limit]
		if !ok {
			l = catalog.SlotLayout(limit)
			layouts[limit] = l
		}
		return l
	}
	declared := make(map[string]bool, len(actual.TaskTypes))
	for _, t := range actual.TaskTypes {
		declared[t.Name] = true
	}
	// buf holds one type's groups at a time (catalog.AppendGroups): the
	// runs of 100,000 types are never all expanded at once.
	var buf []catalog.SlotGroup
	groupsOf := func(name string) []catalog.SlotGroup {
		buf = catalog.AppendGroups(buf[:0], slots[name])
		return buf
	}
	var out []plan.Change
	for _, t := range diff(desired.TaskTypes, actual.TaskTypes) {
		c, same := t.change()
		running := actual.Live.Running[c.Name]
		switch {
		case t.want == nil: // deleted
			c.Context = &plan.Context{Running: &running}
			if gs := groupsOf(c.Name); len(gs) > 0 {
				c.Slots = &plan.SlotChange{LimitBefore: t.have.Concurrency, Used: sumUsed(gs), Drop: true}
			}
			if running > 0 {
				c.Reasons = append(c.Reasons, fmt.Sprintf("%s running: %s normally", textfmt.Plural(running, "task"), textfmt.Word(running, "finishes", "finish")))
			}
			keyContext(&c, nil, t.have, actual.Live.Keys[c.Name])
			out = append(out, c)
			continue
		}
		if same && sameLayout(layout(t.want.Concurrency), slots[c.Name]) {
			warnKeysDraining(p, c.Address, t.want, actual.Live.Keys[c.Name])
			continue // the common case, decided on the runs
		}
		gs := groupsOf(c.Name)
		sc := planSlots(t.want.Concurrency, layout(t.want.Concurrency), gs)
		if same && sc == nil {
			if d := draining(gs, len(layout(t.want.Concurrency))); len(d) > 0 {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %s still draining (%s running above the limit of %d)",
					c.Address, textfmt.Plural(len(d), "slot group"), textfmt.Plural(overLimit(gs, t.want.Concurrency), "task"), t.want.Concurrency))
			}
			warnKeysDraining(p, c.Address, t.want, actual.Live.Keys[c.Name])
			continue
		}
		if same {
			c = t.update() // settings equal, slot groups to fix
		}
		c.Slots = sc
		if t.have != nil {
			c.Context = &plan.Context{Running: &running}
			if c.Slots != nil {
				c.Reasons = append(c.Reasons, slotReasons(c.Slots, running, t.want.Concurrency)...)
			}
			keyContext(&c, t.want, t.have, actual.Live.Keys[c.Name])
		}
		out = append(out, c)
	}
	// Slot rows whose task type is not declared at all (left behind by hand).
	var orphans []string
	for name := range slots {
		if !declared[name] {
			orphans = append(orphans, name)
		}
	}
	sort.Strings(orphans)
	for _, name := range orphans {
		gs := groupsOf(name)
		if onlyDraining(gs) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("task %q was deleted: %s still draining (%s held by tasks that run on); deleted once empty",
				name, textfmt.Plural(len(gs), "slot group"), textfmt.Plural(sumUsed(gs), "unit")))
			continue
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("slot groups exist for %q, which is not a managed task type; pgseq leaves them alone", name))
	}
	return out
}

// planSlots compares layout, the layout for limit (catalog.SlotLayout), with the
// actual groups, sorted by group. It returns
// nil when nothing needs to change. Groups outside the layout are removed;
// the applier deletes those with used = 0 and drains the others (capacity 0).
// A group already draining (capacity 0, still used) needs nothing until it
// is empty.
func planSlots(limit int, layout []int, actual []catalog.SlotGroup) *plan.SlotChange {
	if limit == 0 {
		// Groups of a removed limit that tasks still hold drain at capacity 0
		// until they are empty: nothing to do for them.
		if onlyDraining(actual) {
			return nil
		}
		return &plan.SlotChange{LimitBefore: liveCapacity(actual), Used: sumUsed(actual), Drop: true}
	}
	byGroup := make(map[int]catalog.SlotGroup, len(actual))
	for _, g := range actual {
		byGroup[g.Group] = g
	}
	sc := &plan.SlotChange{Used: sumUsed(actual), LimitAfter: limit}
	for i, capacity := range layout {
		g, ok := byGroup[i+1]
		if !ok || g.Capacity != capacity {
			sc.Set = append(sc.Set, plan.GroupCapacity{Group: i + 1, Capacity: capacity})
		}
	}
	for _, g := range actual {
		if g.Group <= len(layout) {
			continue
		}
		if g.Capacity == 0 && g.Used > 0 {
			continue // draining; removed once empty
		}
		sc.Remove = append(sc.Remove, g.Group)
		if g.Used > 0 {
			sc.Draining = append(sc.Draining, g.Group)
		}
	}
	if len(sc.Set) == 0 && len(sc.Remove) == 0 {
		return nil
	}
	sc.LimitBefore = liveCapacity(actual)
	return sc
}

// sameLayout reports whether runs, one type's in group order, are exactly
// layout: groups 1..n with its capacities, whatever their use.
func sameLayout(layout []int, runs []catalog.SlotRun) bool {
	next := 1
	for _, r := range runs {
		if r.First != next || r.Last > len(layout) {
			return false
		}
		for g := r.First; g <= r.Last; g++ {
			if layout[g-1] != r.Capacity {
				return false
			}
		}
		next = r.Last + 1
	}
	return next == len(layout)+1
}

// onlyDraining reports whether every group is at capacity 0 and still in
// use: the groups of a removed limit (or deleted type) draining until
// their tasks end.
func onlyDraining(gs []catalog.SlotGroup) bool {
	return liveCapacity(gs) == 0 && len(draining(gs, 0)) == len(gs)
}

// draining returns the groups beyond the first groups (the layout's
// number of groups: len(catalog.SlotLayout(limit))) that are still in use.
func draining(actual []catalog.SlotGroup, groups int) []int {
	var out []int
	for _, g := range actual {
		if g.Group > groups && g.Used > 0 {
			out = append(out, g.Group)
		}
	}
	return out
}

func overLimit(actual []catalog.SlotGroup, limit int) int {
	if u := sumUsed(actual); u > limit {
		return u - limit
	}
	return 0
}

func sumUsed(gs []catalog.SlotGroup) int {
	n := 0
	for _, g := range gs {
		n += g.Used
	}
	return n
}

func liveCapacity(gs []catalog.SlotGroup) int {
	n := 0
	for _, g := range gs {
		n += g.Capacity
	}
	return n
}

// slotReasons explains a slot change. running is the figure the change's
// context shows (Context.Running), so the header, the note beside the limit
// and the reasons never disagree about how many tasks run.
func slotReasons(sc *plan.SlotChange, running, limit int) []string {
	var r []string
	if limit > 0 && running > limit {
		r = append(r, fmt.Sprintf("%d running: %d over the new limit, draining; no new task is admitted until running < %d",
			running, running-limit, limit))
	}
	if sc.Drop {
		return append(r, "limit removed: empty slot groups are deleted, those in use drain (capacity 0) until their tasks finish")
	}
	r = append(r, fmt.Sprintf("slot groups: %s", describeLayout(catalog.SlotLayout(limit))))
	if n := len(sc.Remove) - len(sc.Draining); n > 0 {
		r = append(r, fmt.Sprintf("%s deleted", textfmt.Plural(n, "empty slot group")))
	}
	if n := len(sc.Draining); n > 0 {
		r = append(r, fmt.Sprintf("%s in use set to capacity 0 (draining) and removed once empty", textfmt.Plural(n, "slot group")))
	}
	return r
}

// describeLayout writes a layout as "50 × 2" or "33 × 3 + 1 × 2".
func describeLayout(caps []int) string {
	if len(caps) == 0 {
		return "none"
	}
	var parts []string
	i := 0
	for i < len(caps) {
		j := i
		for j < len(caps) && caps[j] == caps[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d × %d", j-i, caps[i]))
		i = j
	}
	return strings.Join(parts, " + ")
}

func sortChanges(cs []plan.Change) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
}
