package spec

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pgseq/pgseq/catalog"
	"github.com/zclconf/go-cty/cty"
)

// decoder turns the syntax trees of a configuration's files into a
// catalog.State, collecting every diagnostic on the way.
type decoder struct {
	diags hcl.Diagnostics
	state catalog.State

	// queues and tasks map declared names to the range of their block
	// header; queueLabels and taskLabels to the range of their name label.
	queues, tasks           map[string]hcl.Range
	queueLabels, taskLabels map[string]hcl.Range

	// refs are the tasks' queue references, checked once every file has
	// been decoded.
	refs []queueRef

	// counters maps declared counter names to their ranges, counterLabels
	// to the range of their name label.
	counters      map[string]CounterRanges
	counterLabels map[string]hcl.Range
	// numbered maps "schema.table.column" to the attached counter that
	// numbers it.
	numbered map[string]numberedColumn

	// accessBlock is the header of the access block, once decoded; roles
	// maps each role it names to where it is first named.
	accessBlock *hcl.Range
	roles       map[string]hcl.Range
}

// queueRef is a task's reference to its queue.
type queueRef struct {
	task, queue string
	// expr is the queue attribute's expression, nil when the task has no
	// queue attribute and uses the default queue.
	expr *hcl.Range
	// def is the task block's header.
	def hcl.Range
}

func newDecoder() *decoder {
	return &decoder{
		state:  catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}},
		queues: map[string]hcl.Range{}, tasks: map[string]hcl.Range{},
		queueLabels: map[string]hcl.Range{}, taskLabels: map[string]hcl.Range{},
		counters: map[string]CounterRanges{}, counterLabels: map[string]hcl.Range{},
		numbered: map[string]numberedColumn{},
	}
}

// errorf records an error diagnostic about subject.
func (d *decoder) errorf(subject hcl.Range, summary, format string, args ...any) {
	d.diags = append(d.diags, errorDiag(subject, summary, format, args...))
}

// errorDiag returns an error diagnostic about subject.
func errorDiag(subject hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject.Ptr(),
	}
}

// blockKind is a kind of top-level block: one kind of managed object.
type blockKind struct {
	// name is the block type.
	name string
	// example shows a block header, for diagnostics.
	example string
	// decode decodes a block of this kind, whose name label has been
	// checked to exist.
	decode func(d *decoder, b *hclsyntax.Block, name string, nameRange hcl.Range)
	// unlabeled, when set, decodes a block of a kind that takes no name
	// label (access) in place of decode.
	unlabeled func(d *decoder, b *hclsyntax.Block)
}

// blockKinds lists the top-level blocks. A new kind of managed object adds
// an entry here and a file with its decoder.
var blockKinds = []blockKind{
	{name: "queue", example: `queue "default" { ... }`, decode: (*decoder).queue},
	{name: "task", example: `task "email:send" { ... }`, decode: (*decoder).task},
	{name: "counter", example: `counter "invoice_number" { ... }`, decode: (*decoder).counter},
	{name: "access", example: accessExample, unlabeled: (*decoder).access},
}

func blockKindNames() []string {
	names := make([]string, len(blockKinds))
	for i, k := range blockKinds {
		names[i] = k.name
	}
	return names
}

// file decodes the top-level body of one file.
func (d *decoder) file(body *hclsyntax.Body) {
	for _, a := range SortedAttributes(body) {
		d.errorf(a.NameRange, "Unsupported argument",
			"An argument named %s is not expected at the top level of a file. A pgseq file holds only %s blocks; settings go inside them.",
			Quote(a.Name), andList(blockKindNames()))
	}
	for _, b := range body.Blocks {
		var kind *blockKind
		for i := range blockKinds {
			if blockKinds[i].name == b.Type {
				kind = &blockKinds[i]
			}
		}
		if kind == nil {
			d.errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected here.%s A pgseq file holds only %s blocks.",
				Quote(b.Type), DidYouMean(b.Type, blockKindNames()), andList(blockKindNames()))
			continue
		}
		if kind.unlabeled != nil {
			kind.unlabeled(d, b)
			continue
		}
		switch len(b.Labels) {
		case 0:
			d.errorf(b.DefRange(), "Missing name for "+kind.name,
				"A %s block needs one label, its name: %s.", kind.name, kind.example)
			continue
		case 1:
		default:
			extra := hcl.RangeBetween(b.LabelRanges[1], b.LabelRanges[len(b.LabelRanges)-1])
			d.errorf(extra, "Extraneous label for "+kind.name,
				"A %s block takes exactly one label, its name: %s. Remove the other labels.", kind.name, kind.example)
		}
		kind.decode(d, b, b.Labels[0], b.LabelRanges[0])
	}
}

// content checks a nested body against the arguments and blocks allowed in
// it. in names the body ("queue", "backoff") for diagnostics. It returns the
// attributes by name and the nested blocks by type; a nested block may
// appear at most once and takes no labels.
func (d *decoder) content(body *hclsyntax.Body, in string, attrNames, blockNames []string) (map[string]*hclsyntax.Attribute, map[string]*hclsyntax.Block) {
	attrs := map[string]*hclsyntax.Attribute{}
	all := append(append([]string(nil), attrNames...), blockNames...)
	for _, a := range SortedAttributes(body) {
		switch {
		case slices.Contains(attrNames, a.Name):
			attrs[a.Name] = a
		case slices.Contains(blockNames, a.Name):
			d.errorf(a.NameRange, "Unsupported argument",
				"%s is a block, not an argument: remove the equals sign and write %s { ... }.", a.Name, a.Name)
		default:
			d.errorf(a.NameRange, "Unsupported argument",
				"An argument named %s is not expected in %s block.%s %s",
				Quote(a.Name), withArticle(in), DidYouMean(a.Name, all), validItems(attrNames, blockNames))
		}
	}
	blocks := map[string]*hclsyntax.Block{}
	for _, b := range body.Blocks {
		switch {
		case slices.Contains(blockNames, b.Type):
		case slices.Contains(attrNames, b.Type):
			d.errorf(b.TypeRange, "Unsupported block type",
				"%s is an argument, not a block: write %s = value.", b.Type, b.Type)
			continue
		default:
			d.errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected in %s block.%s %s",
				Quote(b.Type), withArticle(in), DidYouMean(b.Type, all), validItems(attrNames, blockNames))
			continue
		}
		if first, dup := blocks[b.Type]; dup {
			d.errorf(b.TypeRange, "Duplicate "+b.Type+" block",
				"A %s block may contain only one %s block; the first one is at %s. Merge the settings into one block.",
				in, b.Type, PosString(first.TypeRange))
			continue
		}
		if len(b.Labels) > 0 {
			d.errorf(hcl.RangeBetween(b.LabelRanges[0], b.LabelRanges[len(b.LabelRanges)-1]),
				"Extraneous label for "+b.Type,
				"A %s block takes no labels: write %s { ... }.", b.Type, b.Type)
		}
		blocks[b.Type] = b
	}
	return attrs, blocks
}

// validItems lists what a body may contain, for diagnostics.
func validItems(attrNames, blockNames []string) string {
	s := "Valid arguments: " + strings.Join(attrNames, ", ") + "."
	if len(blockNames) > 0 {
		s += " Valid blocks: " + strings.Join(blockNames, ", ") + "."
	} else {
		s += " It takes no nested blocks."
	}
	return s
}

// value returns the literal value of an attribute. ok is false when a is
// nil, its value is null (both mean "not set") or it is not a literal (an
// error is recorded).
func (d *decoder) value(a *hclsyntax.Attribute) (v cty.Value, ok bool) {
	if a == nil {
		return cty.NilVal, false
	}
	if !IsLiteral(a.Expr) {
		d.notLiteral(a)
		return cty.NilVal, false
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		d.diags = append(d.diags, diags...)
		return cty.NilVal, false
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	return v, true
}

// IsLiteral reports whether expr is a literal value: a number (possibly
// negated), a bool, null, a string without interpolation, or a list of
// literals.
func IsLiteral(expr hclsyntax.Expression) bool {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return true
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
				return false
			}
		}
		return true
	case *hclsyntax.UnaryOpExpr:
		_, ok := e.Val.(*hclsyntax.LiteralValueExpr)
		return ok && e.Op == hclsyntax.OpNegate
	case *hclsyntax.TupleConsExpr:
		for _, x := range e.Exprs {
			if !IsLiteral(x) {
				return false
			}
		}
		return true
	}
	return false
}

// notLiteral records why a's expression is not a literal value.
func (d *decoder) notLiteral(a *hclsyntax.Attribute) {
	d.diags = append(d.diags, NotLiteral(a, "pgseq configuration takes", `500 or "30s"`))
}

// NotLiteral returns the diagnostic for an attribute whose expression is
// not a literal value, located at what makes it so: a reference (with a
// hint when quotes would make it a string), a function call, or any other
// expression. takes is the sentence's subject and verb ("pgseq
// configuration takes", "Scenario files take"); example shows literals of
// the kind wanted (`500 or "30s"`).
func NotLiteral(a *hclsyntax.Attribute, takes, example string) *hcl.Diagnostic {
	if vars := a.Expr.Variables(); len(vars) > 0 {
		v := vars[0]
		hint := ""
		if len(v) == 1 {
			hint = fmt.Sprintf(" If you meant the string %s, put it in quotes: %s = %s.", Quote(v.RootName()), a.Name, Quote(v.RootName()))
		}
		return errorDiag(v.SourceRange(), "Variables not allowed",
			"%s literal values only, not references such as %s.%s", takes, Truncate(traversalString(v)), hint)
	}
	var call *hclsyntax.FunctionCallExpr
	_ = hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
		if c, ok := n.(*hclsyntax.FunctionCallExpr); ok && call == nil {
			call = c
		}
		return nil
	})
	if call != nil {
		return errorDiag(call.Range(), "Function calls not allowed",
			"%s literal values only; %s() cannot be called here. Write the value itself.", takes, Truncate(call.Name))
	}
	return errorDiag(a.Expr.Range(), "Literal value required",
		"%s must be a literal value, such as %s; expressions are not evaluated. Write the value itself.", a.Name, example)
}

// traversalString renders a reference as written (var.x, a.b[0]).
func traversalString(t hcl.Traversal) string {
	var b strings.Builder
	for _, s := range t {
		switch s := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		default:
			b.WriteString("[...]")
		}
	}
	return b.String()
}

// wrongType records that a's value v is not what.
func (d *decoder) wrongType(a *hclsyntax.Attribute, path, what string, v cty.Value) {
	d.diags = append(d.diags, wrongTypeDiag(a, path, what, v))
}

// wrongTypeDiag returns the diagnostic saying that a's value v is not what.
func wrongTypeDiag(a *hclsyntax.Attribute, path, what string, v cty.Value) *hcl.Diagnostic {
	hint := ""
	if v.Type() == cty.String && strings.Contains(what, "number") {
		if _, err := cty.ParseNumberVal(strings.TrimSpace(v.AsString())); err == nil {
			hint = fmt.Sprintf(" Remove the quotes: %s = %s.", a.Name, Truncate(strings.TrimSpace(v.AsString())))
		}
	}
	if v.Type() == cty.Number && strings.Contains(what, "duration") && v.AsBigFloat().IsInt() {
		hint = fmt.Sprintf(" Write a number and a unit in quotes, such as %s = \"%ss\".", a.Name, v.AsBigFloat().Text('f', 0))
	}
	return errorDiag(a.Expr.Range(), "Incorrect value type",
		"%s must be %s, not %s.%s", path, what, TypeName(v.Type()), hint)
}

// TypeName names a value type in diagnostics: "a string", "a list".
func TypeName(t cty.Type) string {
	switch {
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "a bool"
	case t.IsTupleType() || t.IsListType():
		return "a list"
	case t.IsObjectType() || t.IsMapType():
		return "an object"
	}
	return t.FriendlyName()
}

// wholeRule bounds a whole-number attribute.
type wholeRule struct {
	min, max int64
	// hint ends the out-of-range detail: what the value means or how to
	// express what the user may have wanted.
	hint string
}

// whole decodes a whole number within r's bounds.
func (d *decoder) whole(a *hclsyntax.Attribute, path string, r wholeRule) (int, bool) {
	v, ok := d.value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.Number {
		d.wrongType(a, path, "a whole number", v)
		return 0, false
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() || bf.Cmp(big.NewFloat(float64(r.min))) < 0 || bf.Cmp(big.NewFloat(float64(r.max))) > 0 {
		d.errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be a whole number from %d to %d; got %s.%s",
			path, r.min, r.max, bf.Text('g', 20), prefixSpace(r.hint))
		return 0, false
	}
	i, _ := bf.Int64()
	return int(i), true
}

// wholeIn decodes a whole number and checks it with r (WholeIn).
func (d *decoder) wholeIn(a *hclsyntax.Attribute, r catalog.IntRange, hint string) (int, bool) {
	v, ok := d.value(a)
	if !ok {
		return 0, false
	}
	i, diag := WholeIn(a, v, r, hint)
	if diag != nil {
		d.diags = append(d.diags, diag)
		return 0, false
	}
	return i, true
}

// WholeIn checks v, the literal value of a, with r, the catalog rule a
// saved plan is checked with too: it must be a whole number in r's range.
// It returns the number, or the error diagnostic to report, "Incorrect
// value type" or "Invalid <r.Attr>" (hint ends the out-of-range detail).
// Scenario files decode their whole numbers with it too.
func WholeIn(a *hclsyntax.Attribute, v cty.Value, r catalog.IntRange, hint string) (int, *hcl.Diagnostic) {
	if v.Type() != cty.Number {
		return 0, wrongTypeDiag(a, r.Attr, "a whole number", v)
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	err := r.Check(i)
	if !bf.IsInt() || acc != big.Exact {
		err = r.Invalid(bf.Text('g', 20))
	}
	if err != nil {
		return 0, errorDiag(a.Expr.Range(), "Invalid "+r.Attr, "%s.%s", err, prefixSpace(hint))
	}
	return int(i), nil
}

// numberIn decodes a number and checks it with r, the catalog rule a saved
// plan is checked with too. hint ends the out-of-range detail.
func (d *decoder) numberIn(a *hclsyntax.Attribute, r catalog.NumberRange, hint string) (float64, bool) {
	v, ok := d.value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.Number {
		d.wrongType(a, r.Attr, "a number", v)
		return 0, false
	}
	bf := v.AsBigFloat()
	f, _ := bf.Float64()
	if r.Check(f) != nil {
		d.errorf(a.Expr.Range(), "Invalid "+r.Attr, "%s.%s", r.Invalid(bf.Text('g', 20)), prefixSpace(hint))
		return 0, false
	}
	return f, true
}

// durationRule decodes a duration string and checks it with r, the catalog
// rule a saved plan is checked with too.
func (d *decoder) durationRule(a *hclsyntax.Attribute, r catalog.DurationRange) (catalog.Duration, bool) {
	dur, ok := d.duration(a, r.Attr, 0)
	if !ok {
		return 0, false
	}
	if err := r.Check(dur); err != nil {
		d.errorf(a.Expr.Range(), "Invalid "+r.Attr, "%s.", err)
		return 0, false
	}
	return dur, true
}

// str decodes a string.
func (d *decoder) str(a *hclsyntax.Attribute, path string) (string, bool) {
	v, ok := d.value(a)
	if !ok {
		return "", false
	}
	if v.Type() != cty.String {
		d.wrongType(a, path, "a string", v)
		return "", false
	}
	return v.AsString(), true
}

// duration decodes a duration string of at least least.
func (d *decoder) duration(a *hclsyntax.Attribute, path string, least catalog.Duration) (catalog.Duration, bool) {
	v, ok := d.value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		d.wrongType(a, path, `a duration string such as "30s"`, v)
		return 0, false
	}
	dur, err := catalog.ParseDuration(v.AsString())
	if err != nil {
		d.errorf(a.Expr.Range(), "Invalid duration",
			"%s: %s. Write whole numbers with units, such as \"30s\", \"10m\", \"7d\" or \"1h30m\".",
			path, strings.TrimSuffix(err.Error(), "."))
		return 0, false
	}
	if dur < least {
		d.errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be at least %s; got %s.", path, least, dur)
		return 0, false
	}
	return dur, true
}

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// PosString renders where r starts as file:line:col, for diagnostics.
func PosString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// SortedAttributes returns body's attributes in source order.
func SortedAttributes(body *hclsyntax.Body) []*hclsyntax.Attribute {
	attrs := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		attrs = append(attrs, a)
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	return attrs
}

// andList renders names as a, b and c.
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
