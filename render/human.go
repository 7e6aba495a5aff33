package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// Plan writes the human view of p: one block per change with its changed
// attributes (before -> after), the live context beside them, and a summary
// line. Output is deterministic, so it can be golden-tested and diffed in
// pull requests. Control characters in the plan's strings (its reasons,
// warnings, names: a saved plan file can say anything) are shown escaped
// (Sanitize), never sent to the terminal.
//
// When the plan has drift, a section saying which objects changed outside
// pgseq since the last apply, and how, comes first (see writeDrift), apart
// from the actions. A plan of more than SummaryFirst changes says its
// summary before them too: a reader of 100,000 blocks, or of a CI log cut
// after its first lines, sees the counts first.
func Plan(w io.Writer, p *plan.Plan) error {
	return writePlan(w, p, false)
}

// PlanCompact writes the human view of p as Plan does, with one line per
// change (its address, its changed attributes, its context) instead of a
// block: for CI logs and plans of thousands of changes. A destructive
// change keeps its reasons, each on a line of its own.
func PlanCompact(w io.Writer, p *plan.Plan) error {
	return writePlan(w, p, true)
}

// SummaryFirst is the number of changes above which the human view says
// the plan's summary before the changes as well as after them.
const SummaryFirst = 50

func writePlan(w io.Writer, p *plan.Plan, compact bool) error {
	var b strings.Builder
	writeDrift(&b, p)
	writeUpgrade(&b, p.Schema, p.SchemaUpgrade)
	if p.Empty() {
		b.WriteString("No changes. The database matches the configuration.\n")
		if len(p.Drift) > 0 {
			b.WriteString("\nThe configuration already declares what was changed outside pgseq: nothing\n" +
				"needs to change. The next pgseq apply records the database as it is, and\n" +
				"these changes are no longer reported.\n")
		}
		writeWarnings(&b, p.Warnings)
		_, err := io.WriteString(w, Sanitize(b.String()))
		return err
	}
	summary := SummaryLine(p.Summary)
	if u := p.SchemaUpgrade; u != nil {
		summary = fmt.Sprintf("Plan: schema upgrade from version %d to %d, %d to add, %d to change, %d to destroy.",
			u.From, u.To, p.Summary.Add, p.Summary.Change, p.Summary.Destroy)
	}
	if len(p.Changes) > SummaryFirst {
		fmt.Fprintf(&b, "%s\n%s\n\n", summary, kindCounts(p.Changes))
	}
	if len(p.Changes) == 0 {
		b.WriteString("No changes to the configuration's objects: the database matches the\nconfiguration once the schema is upgraded.\n")
	} else {
		b.WriteString("pgseq will perform the following actions:\n")
	}
	if compact && len(p.Changes) > 0 {
		b.WriteString("\n")
	}
	for _, c := range p.Changes {
		if compact {
			writeCompactChange(&b, c)
			continue
		}
		b.WriteString("\n")
		writeChange(&b, c)
	}
	writeWarnings(&b, p.Warnings)
	fmt.Fprintf(&b, "\n%s\n", summary)
	_, err := io.WriteString(w, Sanitize(b.String()))
	return err
}

// writeUpgrade says which migrations apply runs first, when the schema is
// at an older version than this pgseq's.
func writeUpgrade(b *strings.Builder, schema string, u *plan.SchemaUpgrade) {
	if u == nil {
		return
	}
	fmt.Fprintf(b, "pgseq's schema %q is at version %d; this pgseq's is %d. Apply upgrades it\n"+
		"first, in the same transaction as the changes, with %s:\n", schema, u.From, u.To, textfmt.Plural(len(u.Migrations), "migration"))
	for _, m := range u.Migrations {
		fmt.Fprintf(b, "  migration %s\n", m)
	}
	b.WriteString("\n")
}

// SummaryLine returns "Plan: 3 to add, 1 to change, 0 to destroy."
func SummaryLine(s plan.Summary) string {
	return fmt.Sprintf("Plan: %d to add, %d to change, %d to destroy.", s.Add, s.Change, s.Destroy)
}

func writeWarnings(b *strings.Builder, ws []string) {
	if len(ws) == 0 {
		return
	}
	b.WriteString("\nWarnings:\n")
	for _, w := range ws {
		fmt.Fprintf(b, "  ! %s\n", w)
	}
}

var actionVerb = map[plan.Action]string{
	plan.Create: "will be created",
	plan.Update: "will be updated in place",
	plan.Delete: "will be destroyed",
}

func writeChange(b *strings.Builder, c plan.Change) {
	fmt.Fprintf(b, "  # %s %s", c.Address, changeVerb(c))
	if ctx := contextNote(c); ctx != "" {
		fmt.Fprintf(b, " (%s)", ctx)
	}
	b.WriteString("\n")
	if c.Destructive {
		b.WriteString("  # DESTRUCTIVE: needs --allow-destroy\n")
	}
	fmt.Fprintf(b, "  %s %s {\n", c.Action.Symbol(), c.Address)

	var lines []line
	hidden := 0
	switch c.Action {
	case plan.Create:
		for _, a := range catalog.AttributesOf(c.After) {
			if a.Value != "null" && a.Value != "[]" {
				lines = append(lines, line{sym: "+", name: a.Name, value: a.Value})
			}
		}
	case plan.Delete:
		for _, a := range catalog.AttributesOf(c.Before) {
			if a.Value != "null" && a.Value != "[]" {
				lines = append(lines, line{sym: "-", name: a.Name, value: a.Value})
			}
		}
	case plan.Update:
		before := catalog.AttributesOf(c.Before)
		after := catalog.AttributesOf(c.After)
		for i := range before {
			if before[i].Value == after[i].Value {
				// A task's partition block absent on both sides is not an
				// unchanged attribute.
				if before[i].Value != "null" || !strings.HasPrefix(before[i].Name, "partition.") {
					hidden++
				}
				continue
			}
			l := line{sym: "~", name: after[i].Name, value: before[i].Value + " -> " + after[i].Value}
			switch l.name {
			case "concurrency":
				l.note = usageNote(c)
			case "partition.concurrency":
				l.note = keysNote(c)
			}
			lines = append(lines, l)
		}
	}
	writeLines(b, lines)
	for _, r := range c.Reasons {
		fmt.Fprintf(b, "      # %s\n", r)
	}
	if hidden > 0 {
		fmt.Fprintf(b, "      # (%s hidden)\n", textfmt.Plural(hidden, "unchanged attribute"))
	}
	b.WriteString("    }\n")
}

// writeCompactChange writes c on one line: its symbol and address, the
// attributes an update changes (before -> after), and its context; a
// destructive change is marked and keeps its reasons, one per line.
func writeCompactChange(b *strings.Builder, c plan.Change) {
	fmt.Fprintf(b, "  %s %s", c.Action.Symbol(), c.Address)
	if c.Action == plan.Update {
		before := catalog.AttributesOf(c.Before)
		after := catalog.AttributesOf(c.After)
		var changed []string
		for i := range before {
			if before[i].Value != after[i].Value {
				changed = append(changed, after[i].Name+" "+before[i].Value+" -> "+after[i].Value)
			}
		}
		if len(changed) > 0 {
			fmt.Fprintf(b, ": %s", strings.Join(changed, ", "))
		}
	}
	if ctx := contextNote(c); ctx != "" {
		fmt.Fprintf(b, " (%s)", ctx)
	}
	b.WriteString("\n")
	if c.Destructive {
		b.WriteString("      # DESTRUCTIVE: needs --allow-destroy\n")
		for _, r := range c.Reasons {
			fmt.Fprintf(b, "      # %s\n", r)
		}
	}
}

// kindCounts says how many changes there are of each kind of object and
// action: "Changes by kind: 100000 task types to add, 1 queue to add."
func kindCounts(cs []plan.Change) string {
	type key struct {
		kind   string
		action plan.Action
	}
	counts := map[key]int{}
	var order []key
	for _, c := range cs {
		k := key{c.Kind, c.Action}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	verbs := map[plan.Action]string{plan.Create: "to add", plan.Update: "to change", plan.Delete: "to destroy"}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = textfmt.Plural(counts[k], kindNoun(k.kind)) + " " + verbs[k.action]
	}
	return "Changes by kind: " + strings.Join(parts, ", ") + "."
}

// kindNoun names a kind of object in a count.
func kindNoun(kind string) string {
	switch kind {
	case plan.KindTask:
		return "task type"
	case plan.KindAccess:
		return "access level"
	default:
		return kind
	}
}

type line struct {
	sym, name, value string
	// note is a trailing comment, such as live usage beside a limit.
	note string
}

// usageNote describes live usage against a task type's new limit:
// "7 running: 3 over, draining".
func usageNote(c plan.Change) string {
	if c.Context == nil || c.Context.Running == nil || c.Slots == nil {
		return ""
	}
	running, limit := *c.Context.Running, c.Slots.LimitAfter
	if limit > 0 && running > limit {
		return fmt.Sprintf("%d running: %d over, draining", running, running-limit)
	}
	return fmt.Sprintf("%d running", running)
}

// keysNote describes the partition keys over a task type's new per-key
// limit, beside it: "3 keys over, draining"; "" when none is.
func keysNote(c plan.Change) string {
	if c.Context == nil || c.Context.KeysOverLimit == nil || *c.Context.KeysOverLimit == 0 {
		return ""
	}
	return fmt.Sprintf("%s over, draining", textfmt.Plural(*c.Context.KeysOverLimit, "key"))
}

// writeLines writes attributes, grouping dotted names into nested blocks and
// aligning the equals signs within each block, as hcl fmt does.
func writeLines(b *strings.Builder, lines []line) {
	var top []line
	nested := map[string][]line{}
	var order []string
	for _, l := range lines {
		if blk, attr, ok := strings.Cut(l.name, "."); ok {
			if _, seen := nested[blk]; !seen {
				order = append(order, blk)
			}
			l.name = attr
			nested[blk] = append(nested[blk], l)
			continue
		}
		top = append(top, l)
	}
	aligned(b, top, "      ")
	for _, blk := range order {
		ls := nested[blk]
		sym := ls[0].sym
		for _, l := range ls {
			if l.sym != sym {
				sym = "~"
			}
		}
		fmt.Fprintf(b, "      %s %s {\n", sym, blk)
		aligned(b, ls, "          ")
		b.WriteString("        }\n")
	}
}

func aligned(b *strings.Builder, ls []line, indent string) {
	width := 0
	for _, l := range ls {
		if len(l.name) > width {
			width = len(l.name)
		}
	}
	for _, l := range ls {
		if l.note != "" {
			fmt.Fprintf(b, "%s%s %-*s = %s  # %s\n", indent, l.sym, width, l.name, l.value, l.note)
			continue
		}
		fmt.Fprintf(b, "%s%s %-*s = %s\n", indent, l.sym, width, l.name, l.value)
	}
}

func contextNote(c plan.Change) string {
	if c.Context == nil {
		return ""
	}
	var parts []string
	if c.Context.Running != nil {
		parts = append(parts, fmt.Sprintf("%d running", *c.Context.Running))
	}
	if c.Context.Keys != nil {
		parts = append(parts, textfmt.Plural(*c.Context.Keys, "partition key"))
	}
	before, after := partitionOf(c.Before), partitionOf(c.After)
	if c.Context.KeysAtLimit != nil {
		at := textfmt.Thousands(*c.Context.KeysAtLimit) + " at the limit"
		if before != nil {
			at += fmt.Sprintf(" of %d", before.Concurrency)
		}
		parts = append(parts, at)
	}
	if c.Context.KeysOverLimit != nil {
		over := textfmt.Thousands(*c.Context.KeysOverLimit) + " over the limit"
		if after != nil {
			if before != nil && before.Concurrency != after.Concurrency {
				over = textfmt.Thousands(*c.Context.KeysOverLimit) + " over the new limit"
			}
			over += fmt.Sprintf(" of %d", after.Concurrency)
		}
		parts = append(parts, over)
	}
	if c.Context.Unfinished != nil {
		parts = append(parts, textfmt.Plural(*c.Context.Unfinished, "unfinished task"))
	}
	if c.Context.Scopes != nil && c.Context.MaxValue != nil {
		parts = append(parts, fmt.Sprintf("%s, max %s", textfmt.Plural(*c.Context.Scopes, "scope"), textfmt.Thousands(*c.Context.MaxValue)))
	}
	return strings.Join(parts, ", ")
}

// partitionOf returns the partition block of o, a task type; nil for a
// type without one, or another object.
func partitionOf(o catalog.Object) *catalog.Partition {
	if t, ok := o.(*catalog.TaskType); ok && t != nil {
		return t.Partition
	}
	return nil
}
