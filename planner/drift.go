package planner

import (
	"sort"
	"strconv"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// Drift returns the objects changed outside pgseq: how actual (the state a
// plan is made from) differs from applied (the state the last apply left,
// as it recorded it), in canonical order — queues, task types, counters,
// each by name.
//
// Drift is made of the managed settings of queues, task types and counters,
// the capacities of slot groups, and whether an attached counter's trigger
// and unique index are intact. Runtime values are not: slot usage, running
// tasks, issued values. Neither is a draining group (capacity 0) that is
// gone: the runtime deletes those once their last task finishes.
func Drift(applied, actual catalog.State) []plan.Drift {
	var out []plan.Drift
	out = append(out, driftObjects(plan.KindQueue, objects(applied.Queues), objects(actual.Queues), nil)...)
	before, after := slotsByType(applied.Slots), slotsByType(actual.Slots)
	// One type's groups at a time, in buffers used again.
	var b, a []catalog.SlotGroup
	out = append(out, driftObjects(plan.KindTask, objects(applied.TaskTypes), objects(actual.TaskTypes),
		func(name string) []plan.SlotDrift {
			b, a = catalog.AppendGroups(b[:0], before[name]), catalog.AppendGroups(a[:0], after[name])
			return slotDrift(b, a)
		})...)
	out = append(out, driftObjects(plan.KindCounter, counterObjects(applied), counterObjects(actual), nil)...)
	return out
}

// object is one managed object as drift compares it: its attributes in
// display order (catalog.Object's, and for counters their objects' health).
type object struct {
	name  string
	attrs []catalog.Attr
}

// objects returns the objects of one kind as drift compares them.
func objects[T any, P objectPtr[T]](list []T) []object {
	out := make([]object, len(list))
	for i := range list {
		o := P(&list[i])
		out[i] = object{o.Key(), o.Attributes()}
	}
	return out
}

func counterObjects(s catalog.State) []object {
	out := objects(s.Counters)
	for i := range s.Counters {
		c := &s.Counters[i]
		attrs := out[i].attrs
		if c.Attached() {
			live, ok := s.Live.Counters[c.Name]
			if !ok {
				live = catalog.CounterLive{TriggerOK: true, IndexOK: true}
			}
			trigger, index := plan.DriftOK, plan.DriftOK
			if !live.TriggerOK {
				trigger = plan.DriftTriggerBroken
			}
			if !live.IndexOK {
				index = plan.DriftIndexMissing
			}
			attrs = append(attrs, catalog.Attr{Name: plan.DriftTrigger, Value: quoteString(trigger)},
				catalog.Attr{Name: plan.DriftIndex, Value: quoteString(index)})
		}
		out[i] = object{c.Name, attrs}
	}
	return out
}

// driftObjects compares the objects of one kind, by name.
// slots, for task types, gives the slot groups of a type that changed.
func driftObjects(kind string, applied, actual []object, slots func(name string) []plan.SlotDrift) []plan.Drift {
	before := make(map[string]object, len(applied))
	for _, o := range applied {
		before[o.name] = o
	}
	after := make(map[string]object, len(actual))
	for _, o := range actual {
		after[o.name] = o
	}
	var names []string
	for _, o := range applied {
		names = append(names, o.name)
	}
	for _, o := range actual {
		if _, ok := before[o.name]; !ok {
			names = append(names, o.name)
		}
	}
	sort.Strings(names)
	var out []plan.Drift
	for _, name := range names {
		b, inBefore := before[name]
		a, inAfter := after[name]
		d := plan.Drift{Address: Address(kind, name), Kind: kind, Name: name}
		switch {
		case !inBefore:
			d.Action = plan.Create
			for _, attr := range a.attrs {
				if hasValue(attr) {
					d.Attributes = append(d.Attributes, plan.AttributeDrift{Name: attr.Name, After: plan.AttributeValue(attr.Value)})
				}
			}
		case !inAfter:
			d.Action = plan.Delete
			for _, attr := range b.attrs {
				if hasValue(attr) {
					d.Attributes = append(d.Attributes, plan.AttributeDrift{Name: attr.Name, Before: plan.AttributeValue(attr.Value)})
				}
			}
		default:
			d.Action = plan.Update
			d.Attributes = attributeDrift(b.attrs, a.attrs)
			if slots != nil {
				d.Slots = slots(name)
			}
			if len(d.Attributes) == 0 && len(d.Slots) == 0 {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// attributeDrift lists the attributes whose values differ. An attribute
// only one side has (a counter's health, when it was attached or detached
// by hand) is compared with null.
func attributeDrift(before, after []catalog.Attr) []plan.AttributeDrift {
	value := func(attrs []catalog.Attr, name string) string {
		for _, a := range attrs {
			if a.Name == name {
				return a.Value
			}
		}
		return "null"
	}
	var names []string
	for _, a := range before {
		names = append(names, a.Name)
	}
	for _, a := range after {
		if !containsName(before, a.Name) {
			names = append(names, a.Name)
		}
	}
	var out []plan.AttributeDrift
	for _, name := range names {
		x, y := value(before, name), value(after, name)
		if x != y {
			out = append(out, plan.AttributeDrift{Name: name, Before: plan.AttributeValue(x), After: plan.AttributeValue(y)})
		}
	}
	return out
}

func containsName(attrs []catalog.Attr, name string) bool {
	for _, a := range attrs {
		if a.Name == name {
			return true
		}
	}
	return false
}

func hasValue(a catalog.Attr) bool { return a.Value != "null" && a.Value != "[]" }

// slotsByType splits slot runs by task type, each type's in group order.
// They are sorted only when they are not already, as inspect and the
// recorded state give them; the runs of a type share the list's array.
func slotsByType(runs []catalog.SlotRun) map[string][]catalog.SlotRun {
	runs = catalog.State{Slots: runs}.Sorted().Slots
	out := map[string][]catalog.SlotRun{}
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].TaskType == runs[i].TaskType {
			j++
		}
		out[runs[i].TaskType] = runs[i:j:j]
		i = j
	}
	return out
}

// slotDrift compares the slot groups of one task type (each list by group)
// by capacity: groups whose capacity changed, groups that appeared, groups
// that disappeared — except a draining group (capacity 0) that is gone,
// which the runtime deletes once its last task finishes.
func slotDrift(before, after []catalog.SlotGroup) []plan.SlotDrift {
	capacity := func(c int) *int { return &c }
	var out []plan.SlotDrift
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || (i < len(before) && before[i].Group < after[j].Group):
			if b := before[i]; b.Capacity != 0 { // a drained group deleted by the runtime is not drift
				out = append(out, plan.SlotDrift{Group: b.Group, Before: capacity(b.Capacity)})
			}
			i++
		case i == len(before) || after[j].Group < before[i].Group:
			out = append(out, plan.SlotDrift{Group: after[j].Group, After: capacity(after[j].Capacity)})
			j++
		default:
			if b, a := before[i].Capacity, after[j].Capacity; b != a {
				out = append(out, plan.SlotDrift{Group: before[i].Group, Before: capacity(b), After: capacity(a)})
			}
			i++
			j++
		}
	}
	return out
}

func quoteString(s string) string { return strconv.Quote(s) }
