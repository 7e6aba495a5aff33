// Package hcldecode decodes the HCL of pgseq's two file languages, the
// configuration (package spec) and the benchmark scenario files (package
// scenarios): a Decoder checks the arguments and blocks of a body and
// decodes literal values into Go values, collecting every problem as a
// diagnostic with its source range, and the helpers here word those
// diagnostics the same way in both languages.
//
// Values are literals only: references, function calls and operators are
// rejected (IsLiteral, NotLiteral), and an argument set to null counts as
// left out (IsSet).
package hcldecode

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/pgseq/pgseq/catalog"
)

// Decoder decodes the bodies and literal values of one language's files,
// collecting every diagnostic on the way. A language's decoder embeds it.
type Decoder struct {
	// Diags are the problems found, in the order found.
	Diags hcl.Diagnostics
	// Takes and Example word the diagnostic for a value that is not a
	// literal (NotLiteral): Takes is the sentence's subject and verb
	// ("pgseq configuration takes", "Scenario files take"), Example shows
	// literals of the kind wanted (`500 or "30s"`).
	Takes, Example string
	// FractionalDurations says that the language's durations may be
	// fractions, as Go durations are ("1.5s"); otherwise they are whole
	// numbers with units ("90s"). It decides how a number written where
	// a duration is wanted is suggested back with its unit (WrongType).
	FractionalDurations bool
}

// Errorf records an error diagnostic about subject.
func (d *Decoder) Errorf(subject hcl.Range, summary, format string, args ...any) {
	d.Diags = append(d.Diags, ErrorDiag(subject, summary, format, args...))
}

// ErrorDiag returns an error diagnostic about subject.
func ErrorDiag(subject hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject.Ptr(),
	}
}

// Content checks a body against the arguments and blocks allowed in it. in
// names the body ("queue", "size") for diagnostics. blockNames are blocks
// without labels that may appear once, labeledNames blocks that may repeat
// and whose labels the caller checks. It returns the arguments and the
// blocks by name, and the labeled blocks in source order.
func (d *Decoder) Content(body *hclsyntax.Body, in string, attrNames, blockNames, labeledNames []string) (map[string]*hclsyntax.Attribute, map[string]*hclsyntax.Block, []*hclsyntax.Block) {
	attrs := map[string]*hclsyntax.Attribute{}
	allBlocks := append(slices.Clone(blockNames), labeledNames...)
	all := append(slices.Clone(attrNames), allBlocks...)
	for _, a := range SortedAttributes(body) {
		switch {
		case slices.Contains(attrNames, a.Name):
			attrs[a.Name] = a
		case slices.Contains(allBlocks, a.Name):
			d.Errorf(a.NameRange, "Unsupported argument",
				"%s is a block, not an argument: remove the equals sign and write %s { ... }.", a.Name, a.Name)
		default:
			d.Errorf(a.NameRange, "Unsupported argument",
				"An argument named %s is not expected in %s block.%s %s",
				Quote(a.Name), WithArticle(in), DidYouMean(a.Name, all), validItems(attrNames, allBlocks))
		}
	}
	blocks := map[string]*hclsyntax.Block{}
	var labeled []*hclsyntax.Block
	for _, b := range body.Blocks {
		switch {
		case slices.Contains(labeledNames, b.Type):
			labeled = append(labeled, b)
			continue
		case slices.Contains(blockNames, b.Type):
		case slices.Contains(attrNames, b.Type):
			d.Errorf(b.TypeRange, "Unsupported block type",
				"%s is an argument, not a block: write %s = value.", b.Type, b.Type)
			continue
		default:
			d.Errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected in %s block.%s %s",
				Quote(b.Type), WithArticle(in), DidYouMean(b.Type, all), validItems(attrNames, allBlocks))
			continue
		}
		if first, dup := blocks[b.Type]; dup {
			d.Errorf(b.TypeRange, "Duplicate "+b.Type+" block",
				"A %s block may contain only one %s block; the first one is at %s. Merge the settings into one block.",
				in, b.Type, PosString(first.TypeRange))
			continue
		}
		if len(b.Labels) > 0 {
			d.Errorf(hcl.RangeBetween(b.LabelRanges[0], b.LabelRanges[len(b.LabelRanges)-1]),
				"Extraneous label for "+b.Type, "A %s block takes no labels: write %s { ... }.", b.Type, b.Type)
		}
		blocks[b.Type] = b
	}
	return attrs, blocks, labeled
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

// Value returns the literal value of an attribute. ok is false when a is
// nil, its value is null (both mean "not set") or it is not a literal (an
// error is recorded).
func (d *Decoder) Value(a *hclsyntax.Attribute) (v cty.Value, ok bool) {
	if a == nil {
		return cty.NilVal, false
	}
	if !IsLiteral(a.Expr) {
		d.Diags = append(d.Diags, NotLiteral(a, d.Takes, d.Example))
		return cty.NilVal, false
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		d.Diags = append(d.Diags, diags...)
		return cty.NilVal, false
	}
	if v.IsNull() || !v.IsKnown() {
		return cty.NilVal, false
	}
	return v, true
}

// Str decodes a string; path names the attribute in diagnostics.
func (d *Decoder) Str(a *hclsyntax.Attribute, path string) (string, bool) {
	v, ok := d.Value(a)
	if !ok {
		return "", false
	}
	if v.Type() != cty.String {
		d.WrongType(a, path, "a string", v)
		return "", false
	}
	return v.AsString(), true
}

// Bool decodes true or false; path names the attribute in diagnostics.
func (d *Decoder) Bool(a *hclsyntax.Attribute, path string) (bool, bool) {
	v, ok := d.Value(a)
	if !ok {
		return false, false
	}
	if v.Type() != cty.Bool {
		d.WrongType(a, path, "true or false", v)
		return false, false
	}
	return v.True(), true
}

// Number decodes a number; path names the attribute and what says the
// kind of number wanted ("a whole number", "a number between 0 and 1"),
// for the diagnostic when the value is not a number.
func (d *Decoder) Number(a *hclsyntax.Attribute, path, what string) (*big.Float, bool) {
	v, ok := d.Value(a)
	if !ok {
		return nil, false
	}
	if v.Type() != cty.Number {
		d.WrongType(a, path, what, v)
		return nil, false
	}
	return v.AsBigFloat(), true
}

// WholeIn decodes a whole number and checks it with r (r.Attr names it),
// the catalog rule a saved plan is checked with too. hint ends the
// out-of-range detail.
func (d *Decoder) WholeIn(a *hclsyntax.Attribute, r catalog.IntRange, hint string) (int, bool) {
	bf, ok := d.Number(a, r.Attr, "a whole number")
	if !ok {
		return 0, false
	}
	i, acc := bf.Int64()
	err := r.Check(i)
	if !bf.IsInt() || acc != big.Exact {
		err = r.Invalid(bf.Text('g', 20))
	}
	if err != nil {
		d.Errorf(a.Expr.Range(), "Invalid "+r.Attr, "%s.%s", err, PrefixSpace(hint))
		return 0, false
	}
	return int(i), true
}

// WrongType records that a's value v is not what ("a string", "a whole
// number", `a duration string such as "30s"`); path names the attribute.
// The detail ends with the likely fix: the quotes removed from a number
// written as a string where a number is wanted, or a number written where
// a duration is wanted put in quotes with a unit (FractionalDurations).
func (d *Decoder) WrongType(a *hclsyntax.Attribute, path, what string, v cty.Value) {
	hint := ""
	if v.Type() == cty.String && strings.Contains(what, "number") {
		if _, err := cty.ParseNumberVal(strings.TrimSpace(v.AsString())); err == nil {
			hint = fmt.Sprintf(" Remove the quotes: %s = %s.", a.Name, Truncate(strings.TrimSpace(v.AsString())))
		}
	}
	if v.Type() == cty.Number && strings.Contains(what, "duration") && !strings.Contains(what, "number") {
		bf, seconds := v.AsBigFloat(), ""
		switch {
		case d.FractionalDurations:
			seconds = bf.Text('g', 10)
		case bf.IsInt():
			seconds = bf.Text('f', 0)
		}
		if seconds != "" {
			hint = fmt.Sprintf(" Write a number and a unit in quotes, such as %s = \"%ss\".", a.Name, seconds)
		}
	}
	d.Errorf(a.Expr.Range(), "Incorrect value type", "%s must be %s, not %s.%s", path, what, TypeName(v.Type()), hint)
}
