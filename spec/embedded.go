package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// This file serves other HCL formats that embed pgseq configuration (the
// benchmark scenario files of package scenarios): they parse their files as
// configuration files are parsed, and decode the queue and task blocks
// they hold with this package's rules and messages.

// ParseFile parses one HCL file as Parse parses each configuration file:
// the source is first checked against MaxFileSize, MaxNesting,
// MaxNumberLength, MaxStringLength and MaxIdentifierLength (a file over a
// limit gets one diagnostic and is not parsed: file then holds only its
// Bytes), and hclsyntax's "Attribute redefined" is reported in pgseq's
// words. complete is false when the body must not be decoded: a limit was
// exceeded or the file has syntax errors, so its body is partial and
// decoding it would report errors that are not there. file is never nil.
func ParseFile(src []byte, filename string) (file *hcl.File, diags hcl.Diagnostics, complete bool) {
	if diag := checkLimits(src, filename); diag != nil {
		return &hcl.File{Bytes: src}, hcl.Diagnostics{diag}, false
	}
	f, parseDiags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if f == nil {
		return &hcl.File{Bytes: src}, parseDiags, false
	}
	complete = true
	for _, diag := range parseDiags {
		if redefined := duplicateArgument(diag, f); redefined != nil {
			diag = redefined
		} else if diag.Severity == hcl.DiagError {
			complete = false
		}
		diags = append(diags, diag)
	}
	if _, ok := f.Body.(*hclsyntax.Body); !ok {
		complete = false
	}
	return f, diags, complete
}

// embeddedKinds are the blocks DecodeConfigBlocks decodes.
var embeddedKinds = []string{"queue", "task"}

// DecodeConfigBlocks decodes queue and task blocks embedded in another HCL
// document, such as a benchmark scenario, exactly as the same blocks of a
// configuration file are decoded: names, ranges, nested blocks, duplicate
// names, and each task's queue, which must be declared among the blocks
// (a task without a queue argument goes to queue "default"). Every
// problem is reported, each with its source range. A block of another
// type is reported as unsupported; the caller passes only the blocks it
// does not decode itself.
//
// The state is sorted by name with every default filled in, as
// Config.State returns it; it has no counters. When diags has errors the
// state is incomplete.
func DecodeConfigBlocks(blocks []*hclsyntax.Block) (state catalog.State, diags hcl.Diagnostics) {
	d := newDecoder()
	body := &hclsyntax.Body{}
	for _, b := range blocks {
		if b.Type != "queue" && b.Type != "task" {
			d.Errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected here.%s An embedded configuration holds only %s blocks.",
				hcldecode.Quote(b.Type), hcldecode.DidYouMean(b.Type, embeddedKinds), hcldecode.AndList(embeddedKinds))
			continue
		}
		body.Blocks = append(body.Blocks, b)
	}
	d.file(body)
	d.checkRefs()
	d.state.Sort()
	hcldecode.SortDiagnostics(d.Diags)
	return d.state, d.Diags
}
