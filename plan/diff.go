package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgseq/pgseq/catalog"
)

// Differences lists, one line per difference, how current (planned now)
// would change the managed state differently from approved (the plan that
// was reviewed): a change only one of them has, another action, other
// before or after values, other slot groups set or dropped. An empty result
// means applying current does what approved said.
//
// Live values are not compared — context, reasons, warnings, usage, which
// groups drain, which surplus groups are removed, destructiveness — since
// they move all the time without changing what the configuration declares;
// neither is a change that only removes drained slot groups (nothing
// declared changes), which appears as soon as a draining group empties.
func Differences(approved, current *Plan) []string {
	type key struct {
		rank int
		name string
	}
	index := func(p *Plan) map[key]Change {
		m := make(map[key]Change, len(p.Changes))
		for _, c := range p.Changes {
			m[key{catalog.KindRank(c.Kind), c.Name}] = c
		}
		return m
	}
	a, b := index(approved), index(current)
	keys := make([]key, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].rank != keys[j].rank {
			return keys[i].rank < keys[j].rank
		}
		return keys[i].name < keys[j].name
	})
	var out []string
	for _, k := range keys {
		ca, inA := a[k]
		cb, inB := b[k]
		switch {
		case !inB:
			if !ca.cleanupOnly() {
				out = append(out, fmt.Sprintf("%s: the plan would %s it; now it needs no change", ca.Address, ca.Action))
			}
		case !inA:
			if !cb.cleanupOnly() {
				out = append(out, fmt.Sprintf("%s: would now also be %s", cb.Address, pastTense[cb.Action]))
			}
		default:
			out = append(out, changeDifferences(ca, cb)...)
		}
	}
	return out
}

var pastTense = map[Action]string{Create: "created", Update: "updated", Delete: "destroyed"}

// cleanupOnly reports whether c only removes drained slot groups of a task
// type: no attribute changes and no group is set or dropped.
func (c Change) cleanupOnly() bool {
	return c.Kind == KindTask && c.Action == Update && c.Slots != nil && !c.Slots.Drop &&
		len(c.Slots.Set) == 0 && len(catalog.ChangedAttributes(c.Before, c.After)) == 0
}

// changeDifferences compares two changes of the same object.
func changeDifferences(a, b Change) []string {
	if a.Action != b.Action {
		return []string{fmt.Sprintf("%s: the plan would %s it; now it would be %s", a.Address, a.Action, pastTense[b.Action])}
	}
	var out []string
	if d := attributeDifferences(a.Before, b.Before); d != "" {
		out = append(out, fmt.Sprintf("%s: changed in the database since the plan was made: %s", a.Address, d))
	}
	if d := attributeDifferences(a.After, b.After); d != "" {
		out = append(out, fmt.Sprintf("%s: the plan writes other values than are needed now: %s", a.Address, d))
	}
	if sa, sb := slotEffect(a.Slots), slotEffect(b.Slots); sa != sb {
		out = append(out, fmt.Sprintf("%s: slot groups: the plan would %s; now they need to %s", a.Address, sa, sb))
	}
	return out
}

// attributeDifferences writes the attributes whose values differ between
// two objects of the same kind ("concurrency 20 -> 30"), or "".
func attributeDifferences(x, y catalog.Object) string {
	ax, ay := catalog.AttributesOf(x), catalog.AttributesOf(y)
	var parts []string
	for i := range ax {
		if i < len(ay) && ax[i].Value != ay[i].Value {
			parts = append(parts, fmt.Sprintf("%s %s -> %s", ax[i].Name, ax[i].Value, ay[i].Value))
		}
	}
	return strings.Join(parts, ", ")
}

// slotEffect describes what a slot change declares: groups dropped, or the
// capacities set. Removals of surplus groups follow from the layout and the
// live usage and are not part of it.
func slotEffect(s *SlotChange) string {
	switch {
	case s == nil || (!s.Drop && len(s.Set) == 0):
		return "stay as they are"
	case s.Drop:
		return "be dropped"
	}
	parts := make([]string, len(s.Set))
	for i, g := range s.Set {
		parts[i] = fmt.Sprintf("%d:%d", g.Group, g.Capacity)
	}
	return "set group:capacity " + strings.Join(parts, " ")
}
