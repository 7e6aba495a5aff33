package plan

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pgseq/pgseq/catalog"
)

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// migrationNameRE matches a migration's name: its version and its file's
// name without .sql.
var migrationNameRE = regexp.MustCompile(`^[0-9]{3}_[a-z0-9_]{1,60}$`)

// systemIDRE matches a cluster's system identifier: an unsigned 64-bit
// number in decimal.
var systemIDRE = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)

// Validate checks that the plan is one pgseq could have made, without a
// database:
//
//   - format_version is MAJOR.MINOR of a major version this pgseq reads;
//     schema is a valid schema name; state_fingerprint is a SHA-256;
//     database, when present, has a name and a decimal system identifier
//     (or none);
//   - summary counts the changes;
//   - changes are in canonical order (queues, task types, counters, access
//     levels, each by name), one per object;
//   - each change's address, name and type agree; its action has the
//     before and after it needs, naming the same object;
//   - every object written (after) obeys the configuration's rules
//     (catalog's Validate: names, ranges of every attribute);
//   - changed_attributes are exactly the attributes that differ between
//     before and after;
//   - slot changes belong to task types and fit the new limit: limit_after
//     is the limit after the change, and the groups set and removed follow
//     catalog.SlotLayout(limit_after);
//   - drift entries are in canonical order, one per object, with address,
//     name and type agreeing, attributes of their kind in display order
//     with the before and after their action needs, and slot groups in
//     ascending order (task types only).
//
// Before values are what the database held; the applier compares them with
// the database under the apply lock. Context, reasons, warnings and
// destructive flags are for display: the applier decides destructiveness
// again from the state it finds.
//
// The error (ErrInvalid) lists every problem, one per line, each naming
// the change and the attribute.
func (p *Plan) Validate() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if err := checkVersion(p.FormatVersion); err != nil {
		add("%v", err)
	}
	if !catalog.ValidSchemaName(p.Schema) {
		add("schema %q is not a valid schema name (^[a-z_][a-z0-9_]{0,62}$)", p.Schema)
	}
	if !fingerprintRE.MatchString(p.Fingerprint) {
		add("state_fingerprint %q is not a SHA-256 in hex", p.Fingerprint)
	}
	if d := p.Database; d != nil {
		if d.Name == "" || len(d.Name) > 63 || !utf8.ValidString(d.Name) {
			add("database.name %q is not a database name (1 to 63 bytes)", d.Name)
		}
		if d.SystemIdentifier != "" && !systemIDRE.MatchString(d.SystemIdentifier) {
			add("database.system_identifier %q is not a system identifier (a decimal number, or empty when unknown)", d.SystemIdentifier)
		}
	}
	if u := p.SchemaUpgrade; u != nil {
		switch {
		case u.From < 1 || u.To <= u.From:
			add("schema_upgrade from %d to %d is not an upgrade (from ≥ 1, to > from)", u.From, u.To)
		case len(u.Migrations) != u.To-u.From:
			add("schema_upgrade from %d to %d lists %d migrations, not %d", u.From, u.To, len(u.Migrations), u.To-u.From)
		default:
			for i, m := range u.Migrations {
				if want := fmt.Sprintf("%03d_", u.From+1+i); !strings.HasPrefix(m, want) || !migrationNameRE.MatchString(m) {
					add("schema_upgrade.migrations[%d] %q is not migration %s…", i, m, want)
				}
			}
		}
	}
	counted := Plan{Changes: p.Changes}
	counted.Count()
	if counted.Summary != p.Summary {
		add("summary says %d to add, %d to change, %d to destroy, but the changes add %d, change %d and destroy %d",
			p.Summary.Add, p.Summary.Change, p.Summary.Destroy, counted.Summary.Add, counted.Summary.Change, counted.Summary.Destroy)
	}
	for i, c := range p.Changes {
		where := fmt.Sprintf("changes[%d] (%s)", i, c.Address)
		if i > 0 {
			prev := p.Changes[i-1]
			if !inOrder(prev.Kind, prev.Name, c.Kind, c.Name) {
				add("%s: out of order or repeated after %s: changes are queues, then task types, then counters, then access levels, each by name, one per object", where, prev.Address)
			}
		}
		for _, msg := range c.problems() {
			add("%s: %s", where, msg)
		}
	}
	problems = append(problems, p.driftProblems()...)
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w:\n  %s", ErrInvalid, strings.Join(problems, "\n  "))
}

// inOrder reports whether an object of kind and name may follow one of
// prevKind and prevName in a plan's changes or drift: kinds in plan order
// (catalog.KindRank), each by name, one entry per object.
func inOrder(prevKind, prevName, kind, name string) bool {
	if rp, r := catalog.KindRank(prevKind), catalog.KindRank(kind); rp != r {
		return rp < r
	}
	return prevName < name
}

// Address returns the display address of an object: `queue "default"`,
// and for an access level given to a role `access.work["app_worker"]`
// (name is catalog.Grant.Name).
func Address(kind, name string) string {
	if kind == KindAccess {
		return kind + "." + name
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// problems lists what is wrong with one change, each naming the attribute.
func (c Change) problems() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	if catalog.KindRank(c.Kind) == len(catalog.Kinds()) {
		return []string{fmt.Sprintf("type %q is not %s", c.Kind, orList(catalog.Kinds()))}
	}
	if !catalog.ValidKey(c.Kind, c.Name) {
		add("name %q is not a valid %s name", c.Name, c.Kind)
	}
	if want := Address(c.Kind, c.Name); c.Address != want {
		add("address %q does not match type and name (%s)", c.Address, want)
	}
	switch c.Action {
	case Create:
		if c.Before != nil || c.After == nil {
			add("a create has an after and no before")
		}
	case Update:
		if c.Before == nil || c.After == nil {
			add("an update has a before and an after")
		}
	case Delete:
		if c.Before == nil || c.After != nil {
			add("a delete has a before and no after")
		}
	default:
		add("action %q is not create, update or delete", c.Action)
	}
	for _, side := range []struct {
		name string
		obj  catalog.Object
	}{{"before", c.Before}, {"after", c.After}} {
		switch {
		case side.obj == nil:
		case side.obj.Kind() != c.Kind:
			add("%s is not a %s", side.name, c.Kind)
		case side.obj.Key() != c.Name:
			add("%s.name %q is not the change's name %q", side.name, side.obj.Key(), c.Name)
		}
	}
	if len(out) > 0 {
		return out // the rest assumes a well-formed change
	}
	if c.After != nil {
		var es catalog.Errors
		if err := c.After.Validate(); errors.As(err, &es) {
			for _, e := range es {
				add("after.%s: %s", e.Attr, e.Msg)
			}
		}
	}
	want := []string(nil)
	if c.Action == Update {
		want = catalog.ChangedAttributes(c.Before, c.After)
	}
	if !slices.Equal(c.Attributes, want) {
		add("changed_attributes %q do not match before and after (%q)", c.Attributes, want)
	}
	if c.Action == Update && len(want) == 0 {
		switch {
		case c.Kind == KindQueue:
			add("an update of a queue changes no attribute")
		case c.Kind == KindTask && c.Slots == nil:
			add("an update of a task type changes no attribute and no slot group")
		}
	}
	out = append(out, c.slotProblems()...)
	return out
}

// orList writes "queue, task, counter or access".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// slotProblems checks a change's slot groups against its new limit.
func (c Change) slotProblems() []string {
	s := c.Slots
	if s == nil {
		return nil
	}
	if c.Kind != KindTask {
		return []string{fmt.Sprintf("slots: a %s has no slot groups", c.Kind)}
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	limit := 0
	if t, ok := c.After.(*catalog.TaskType); ok {
		limit = t.Concurrency
	}
	if s.LimitAfter != limit {
		add("slots.limit_after is %d, but the limit after the change is %d", s.LimitAfter, limit)
	}
	if s.LimitBefore < 0 || s.Used < 0 {
		add("slots.limit_before and slots.used cannot be negative")
	}
	if s.Drop {
		if limit != 0 {
			add("slots.drop deletes every slot group, but the task type keeps a limit of %d", limit)
		}
		if len(s.Set) > 0 || len(s.Remove) > 0 || len(s.Draining) > 0 {
			add("slots.drop deletes every slot group: set, remove and draining must be empty")
		}
		return out
	}
	if limit == 0 {
		return append(out, "slots: a task type without a limit has no slot groups (only drop)")
	}
	layout := catalog.SlotLayout(limit)
	prev := 0
	for i, g := range s.Set {
		switch {
		case g.Group <= prev:
			add("slots.set[%d]: group %d: groups must be distinct, in ascending order", i, g.Group)
		case g.Group > len(layout):
			add("slots.set[%d]: group %d is outside the layout of limit %d (%d groups)", i, g.Group, limit, len(layout))
		case g.Capacity != layout[g.Group-1]:
			add("slots.set[%d]: group %d has capacity %d; the layout of limit %d gives it %d", i, g.Group, g.Capacity, limit, layout[g.Group-1])
		}
		prev = g.Group
	}
	prev = 0
	for i, g := range s.Remove {
		switch {
		case g <= prev:
			add("slots.remove[%d]: group %d: groups must be distinct, in ascending order", i, g)
		case g <= len(layout):
			add("slots.remove[%d]: group %d is part of the layout of limit %d (%d groups)", i, g, limit, len(layout))
		}
		prev = g
	}
	for i, g := range s.Draining {
		if !slices.Contains(s.Remove, g) {
			add("slots.draining[%d]: group %d is not removed", i, g)
		}
	}
	if len(s.Set) == 0 && len(s.Remove) == 0 {
		add("slots: neither sets nor removes a group")
	}
	return out
}
