package hcldecode

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

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

// IsSet reports whether a is set: there, and not the literal null, which
// counts as left out.
func IsSet(a *hclsyntax.Attribute) bool {
	if a == nil {
		return false
	}
	lit, ok := a.Expr.(*hclsyntax.LiteralValueExpr)
	return !ok || !lit.Val.IsNull()
}

// NotLiteral returns the diagnostic for an attribute whose expression is
// not a literal value, located at what makes it so: a reference (with a
// hint when quotes would make it a string), a function call, or any other
// expression. takes and example word it as Decoder.Takes and
// Decoder.Example say.
func NotLiteral(a *hclsyntax.Attribute, takes, example string) *hcl.Diagnostic {
	if vars := a.Expr.Variables(); len(vars) > 0 {
		v := vars[0]
		hint := ""
		if len(v) == 1 {
			hint = fmt.Sprintf(" If you meant the string %s, put it in quotes: %s = %s.", Quote(v.RootName()), a.Name, Quote(v.RootName()))
		}
		return ErrorDiag(v.SourceRange(), "Variables not allowed",
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
		return ErrorDiag(call.Range(), "Function calls not allowed",
			"%s literal values only; %s() cannot be called here. Write the value itself.", takes, Truncate(call.Name))
	}
	return ErrorDiag(a.Expr.Range(), "Literal value required",
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
