package spec

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints every diagnostic, in order, for a person to read:
//
//	main.hcl:3:17: error: Invalid concurrency
//
//	  3 |   concurrency = 0
//	    |                 ^
//
//	concurrency must be a whole number from 1 to 1000000; got 0. ...
//
// files supplies the source lines (Config.Files); a diagnostic whose file
// is not there, or that has no source range, is printed without them.
// Diagnostics are separated by a blank line. Only the Bytes of each file
// are used, so a caller holding just the source can pass
// map[string]*hcl.File{name: {Bytes: src}}. The error is w's.
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, files map[string]*hcl.File) error {
	var b bytes.Buffer
	for i, diag := range diags {
		if i > 0 {
			b.WriteByte('\n')
		}
		severity := "error"
		if diag.Severity == hcl.DiagWarning {
			severity = "warning"
		}
		if s := diag.Subject; s != nil {
			fmt.Fprintf(&b, "%s:%d:%d: ", s.Filename, s.Start.Line, s.Start.Column)
		}
		fmt.Fprintf(&b, "%s: %s\n", severity, diag.Summary)
		if s := diag.Subject; s != nil {
			if f := files[s.Filename]; f != nil {
				writeSnippet(&b, f.Bytes, *s)
			}
		}
		if diag.Detail != "" {
			fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(diag.Detail, "\n"))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// maxSnippetWidth is the most characters of a source line that a snippet
// shows; a longer line is cut around the range, with an ellipsis for what
// is left out.
const maxSnippetWidth = 200

// writeSnippet prints the source line where r starts, with a row of carets
// under r (up to the end of that line, or of the part of it shown).
func writeSnippet(b *bytes.Buffer, src []byte, r hcl.Range) {
	if r.Start.Byte < 0 || r.Start.Byte > len(src) {
		return
	}
	start := bytes.LastIndexByte(src[:r.Start.Byte], '\n') + 1
	end := len(src)
	if i := bytes.IndexByte(src[r.Start.Byte:], '\n'); i >= 0 {
		end = r.Start.Byte + i
	}
	text := strings.TrimRight(string(src[start:end]), "\r")
	line := []rune(text)
	col := utf8.RuneCount(src[start:r.Start.Byte])
	stop := min(max(r.End.Byte, r.Start.Byte), start+len(text))
	width := 1
	if stop > r.Start.Byte {
		width = utf8.RuneCount(src[r.Start.Byte:stop])
	}

	// The part of the line shown: all of it, or maxSnippetWidth
	// characters starting a little before the range.
	from, to := 0, len(line)
	if len(line) > maxSnippetWidth {
		const before = 20
		if col > maxSnippetWidth-before {
			from = min(col-before, len(line)-maxSnippetWidth)
		}
		to = from + maxSnippetWidth
	}
	width = max(1, min(width, to-col))
	var shown, pad strings.Builder
	if from > 0 {
		shown.WriteString("…")
		pad.WriteByte(' ')
	}
	shown.WriteString(string(line[from:to]))
	if to < len(line) {
		shown.WriteString("…")
	}
	// Pad with the line's own tabs so the carets line up with tabbed source.
	for _, c := range line[from:min(col, len(line))] {
		if c == '\t' {
			pad.WriteRune('\t')
		} else {
			pad.WriteRune(' ')
		}
	}
	num := fmt.Sprint(r.Start.Line)
	gutter := strings.Repeat(" ", len(num))
	fmt.Fprintf(b, "\n  %s | %s\n", num, shown.String())
	fmt.Fprintf(b, "  %s | %s%s\n", gutter, pad.String(), strings.Repeat("^", width))
}
