package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgseq/pgseq/plan"
)

// DriftHeading opens the drift section of the human plan.
const DriftHeading = "Note: Objects have changed outside of pgseq"

var driftVerb = map[plan.Action]string{
	plan.Create: "has been created",
	plan.Update: "has changed",
	plan.Delete: "has been deleted",
}

// writeDrift writes the objects changed outside pgseq since the last apply,
// as Terraform writes its "Objects have changed outside of Terraform": one
// block per object, each changed attribute before -> after, and for a task
// type each slot group whose capacity changed, appeared or disappeared. The
// section is apart from, and before, the actions the configuration asks for.
func writeDrift(b *strings.Builder, p *plan.Plan) {
	if len(p.Drift) == 0 {
		return
	}
	b.WriteString(DriftHeading + "\n\n")
	b.WriteString("pgseq detected the following changes made outside of pgseq since the last\npgseq apply:\n")
	for _, d := range p.Drift {
		b.WriteString("\n")
		writeDriftObject(b, d)
	}
	if len(p.Changes) > 0 {
		b.WriteString("\nUnless the configuration now declares the same, the actions below undo these\n" +
			"changes: apply brings the database back to the configuration.\n\n")
	} else {
		b.WriteString("\n")
	}
}

func writeDriftObject(b *strings.Builder, d plan.Drift) {
	fmt.Fprintf(b, "  # %s %s\n", d.Address, driftVerb[d.Action])
	fmt.Fprintf(b, "  %s %s {\n", d.Action.Symbol(), d.Address)
	var lines []line
	for _, a := range d.Attributes {
		l := line{name: a.Name}
		switch d.Action {
		case plan.Create:
			l.sym, l.value = "+", literal(a.After)
		case plan.Delete:
			l.sym, l.value = "-", literal(a.Before)
		default:
			l.sym, l.value = "~", literal(a.Before)+" -> "+literal(a.After)
		}
		lines = append(lines, l)
	}
	for _, g := range d.Slots {
		// "slot_group 2.capacity" is written as a nested block, like backoff.max.
		l := line{name: fmt.Sprintf("slot_group %d.capacity", g.Group)}
		switch {
		case g.Before == nil:
			l.sym, l.value = "+", strconv.Itoa(*g.After)
		case g.After == nil:
			l.sym, l.value = "-", strconv.Itoa(*g.Before)
		default:
			l.sym, l.value = "~", fmt.Sprintf("%d -> %d", *g.Before, *g.After)
		}
		lines = append(lines, l)
	}
	writeLines(b, lines)
	b.WriteString("    }\n")
}

// literal writes a drift value (JSON) as the plan writes attribute values:
// HCL literals ("30s" quoted, null, lists).
func literal(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	return hclValue(v)
}

func hclValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = hclValue(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
