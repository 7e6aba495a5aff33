package hcldecode

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// maxQuoted is the most characters of a value that a message quotes.
const maxQuoted = 150

// Quote returns s in double quotes, Go-escaped as %q would, shortened to
// its first maxQuoted characters and an ellipsis when longer: messages
// never echo an unbounded input back.
func Quote(s string) string {
	return strconv.Quote(Truncate(s))
}

// Truncate shortens s to its first maxQuoted characters and an ellipsis.
func Truncate(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return s
	}
	n := 0
	for i := range s {
		if n == maxQuoted {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// DidYouMean returns ` Did you mean "x"?` for the candidate closest to
// given, or "" when none is close enough to be a likely typo.
func DidYouMean(given string, candidates []string) string {
	if s := Suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// Suggest returns the candidate closest to given, or "" when none is close
// enough to be a likely typo.
func Suggest(given string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		if strings.EqualFold(c, given) {
			return c
		}
		d := EditDistance(strings.ToLower(given), strings.ToLower(c))
		if d <= max(2, len(c)/4) && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// AndList renders names as a, b and c.
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// WithArticle writes a block type with its indefinite article: "a queue",
// "an access".
func WithArticle(blockType string) string {
	if blockType != "" && strings.ContainsRune("aeiou", rune(blockType[0])) {
		return "an " + blockType
	}
	return "a " + blockType
}

// PrefixSpace returns s with a space before it, or "" when s is: the end
// of a detail that may have a hint.
func PrefixSpace(s string) string {
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

// SortDiagnostics orders diagnostics by file and position; those without a
// source range come first.
func SortDiagnostics(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
}
