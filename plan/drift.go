package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgseq/pgseq/catalog"
)

// Drift is one object changed outside pgseq: how the state the plan was made
// from differs from the state the last apply left (recorded in the apply
// history). It is for display: apply brings the database to the
// configuration whatever the drift, and the changes of the plan already
// include whatever undoing it takes.
type Drift struct {
	// Address names the object: `task "render"`.
	Address string `json:"address"`
	// Kind is KindQueue, KindTask or KindCounter.
	Kind string `json:"type"`
	// Name is the object's name.
	Name string `json:"name"`
	// Action is what happened to the object: create (it appeared), update
	// (attributes or slot groups changed) or delete (it disappeared).
	Action Action `json:"action"`
	// Attributes are the attributes that changed, in display order: for a
	// create or delete every attribute with a value.
	Attributes []AttributeDrift `json:"attributes,omitempty"`
	// Slots are the task type's slot groups whose capacity changed, or that
	// appeared or disappeared, by group (updates of task types only).
	Slots []SlotDrift `json:"slots,omitempty"`
}

// AttributeDrift is one attribute's value before and after, as JSON values
// (numbers, strings — durations in canonical form — null, lists). Before is
// absent for an object that appeared, After for one that disappeared.
type AttributeDrift struct {
	// Name is the attribute in HCL spelling, nested ones dotted
	// ("backoff.max"), or for a counter DriftTrigger or DriftIndex.
	Name   string          `json:"attribute"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// SlotDrift is one slot group whose capacity changed outside pgseq. A nil
// capacity means the group did not exist (before) or no longer exists
// (after). Usage is never drift.
type SlotDrift struct {
	Group  int  `json:"slot_group"`
	Before *int `json:"capacity_before"`
	After  *int `json:"capacity_after"`
}

// Pseudo-attributes of an attached counter's drift: whether its trigger and
// its unique index are intact. Their values are DriftOK or DriftTriggerBroken
// and DriftIndexMissing.
const (
	DriftTrigger = "trigger"
	DriftIndex   = "unique_index"

	DriftOK            = "ok"
	DriftTriggerBroken = "missing or disabled"
	DriftIndexMissing  = "missing"
)

// AttributeValue returns an attribute's value (an HCL literal, as Attr holds
// it) as the JSON value the drift section writes.
func AttributeValue(literal string) json.RawMessage {
	str := func(s string) json.RawMessage {
		b, _ := json.Marshal(s)
		return b
	}
	switch {
	case literal == "null":
		return json.RawMessage("null")
	case strings.HasPrefix(literal, `"`):
		if s, err := strconv.Unquote(literal); err == nil {
			return str(s)
		}
	case strings.HasPrefix(literal, "[") && strings.HasSuffix(literal, "]"):
		items := []string{}
		rest := literal[1 : len(literal)-1]
		for rest != "" {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return str(literal)
			}
			s, _ := strconv.Unquote(q)
			items = append(items, s)
			rest = strings.TrimPrefix(rest[len(q):], ", ")
		}
		b, _ := json.Marshal(items)
		return b
	default:
		if json.Valid([]byte(literal)) {
			return json.RawMessage(literal)
		}
	}
	return str(literal)
}

// driftAttributeNames lists the attributes a drift entry of kind may name,
// in display order.
func driftAttributeNames(kind string) []string {
	obj, ok := catalog.NewObject(kind)
	if !ok || kind == KindAccess {
		return nil // access levels do not drift: their repairs are changes
	}
	var names []string
	for _, a := range obj.Attributes() {
		names = append(names, a.Name)
	}
	if kind == KindCounter {
		names = append(names, DriftTrigger, DriftIndex)
	}
	return names
}

// driftProblems lists what is wrong with the plan's drift entries: they
// follow the rules of changes (canonical order, one per object, address,
// name and type agreeing) and say something (an update names attributes or
// slot groups that differ).
func (p *Plan) driftProblems() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for i, d := range p.Drift {
		where := fmt.Sprintf("drift[%d] (%s)", i, d.Address)
		if i > 0 {
			prev := p.Drift[i-1]
			if !inOrder(prev.Kind, prev.Name, d.Kind, d.Name) {
				add("%s: out of order or repeated after %s: drift is queues, then task types, then counters, each by name, one per object", where, prev.Address)
			}
		}
		for _, msg := range d.problems() {
			add("%s: %s", where, msg)
		}
	}
	return out
}

func (d Drift) problems() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	validName := map[string]func(string) bool{
		KindQueue: catalog.ValidQueueName, KindTask: catalog.ValidTaskName, KindCounter: catalog.ValidCounterName,
	}[d.Kind]
	if validName == nil {
		return []string{fmt.Sprintf("type %q is not queue, task or counter", d.Kind)}
	}
	if !validName(d.Name) {
		add("name %q is not a valid %s name", d.Name, d.Kind)
	}
	if want := Address(d.Kind, d.Name); d.Address != want {
		add("address %q does not match type and name (%s)", d.Address, want)
	}
	if d.Action != Create && d.Action != Update && d.Action != Delete {
		add("action %q is not create, update or delete", d.Action)
	}
	names := driftAttributeNames(d.Kind)
	last := -1
	for j, a := range d.Attributes {
		at := fmt.Sprintf("attributes[%d] (%s)", j, a.Name)
		k := slices.Index(names, a.Name)
		switch {
		case k < 0:
			add("%s: not an attribute of a %s", at, d.Kind)
		case k <= last:
			add("%s: out of order or repeated: attributes are in display order (%s)", at, strings.Join(names, ", "))
		}
		if k >= 0 {
			last = k
		}
		hasBefore, hasAfter := len(a.Before) > 0, len(a.After) > 0
		switch d.Action {
		case Create:
			if hasBefore || !hasAfter {
				add("%s: an object that appeared has an after and no before", at)
			}
		case Delete:
			if !hasBefore || hasAfter {
				add("%s: an object that disappeared has a before and no after", at)
			}
		case Update:
			if !hasBefore || !hasAfter {
				add("%s: a changed attribute has a before and an after", at)
			} else if bytes.Equal(compactJSON(a.Before), compactJSON(a.After)) {
				add("%s: before and after are the same", at)
			}
		}
	}
	if len(d.Slots) > 0 && (d.Kind != KindTask || d.Action != Update) {
		add("slots: only a task type that changed has slot groups in its drift")
	}
	prev := 0
	for j, g := range d.Slots {
		at := fmt.Sprintf("slots[%d] (slot group %d)", j, g.Group)
		switch {
		case g.Group <= prev:
			add("%s: groups must be distinct, in ascending order", at)
		case g.Before == nil && g.After == nil:
			add("%s: capacity_before and capacity_after cannot both be null", at)
		case (g.Before != nil && *g.Before < 0) || (g.After != nil && *g.After < 0):
			add("%s: a capacity cannot be negative", at)
		case g.Before != nil && g.After != nil && *g.Before == *g.After:
			add("%s: capacity_before and capacity_after are the same", at)
		}
		prev = g.Group
	}
	if d.Action == Update && len(d.Attributes) == 0 && len(d.Slots) == 0 {
		add("a changed object names no attribute and no slot group")
	}
	return out
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
