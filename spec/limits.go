package spec

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/pgseq/pgseq/internal/hcldecode"
)

// Limits on a configuration file. They are checked on the bytes before the
// file is parsed, because the HCL parser recurses once per nesting level
// (70,000 nested parentheses overflow the stack) and reads a number literal
// in time that grows with the square of its length. pgseq's configurations
// need far less than any of them.
const (
	// MaxFileSize is the largest configuration file, in bytes (1 MiB).
	// Larger configurations are split into several files of a directory.
	MaxFileSize = 1 << 20
	// MaxNesting is how deeply brackets, braces, parentheses, template
	// interpolations and unary operators may nest in one another.
	MaxNesting = 32
	// MaxNumberLength is the longest number literal, in bytes.
	MaxNumberLength = 64
	// MaxStringLength is the longest quoted string or heredoc, in bytes,
	// including any interpolations in it.
	MaxStringLength = 4096
	// MaxIdentifierLength is the longest identifier (an argument or block
	// name, or a name label written without quotes), in bytes.
	MaxIdentifierLength = 256
)

// ReadFile reads the configuration file name, but no more than
// MaxFileSize+1 bytes of it: enough for Parse and Format to report a file
// that is too large without reading all of it.
func ReadFile(name string) ([]byte, error) {
	return hcldecode.ReadFile(name, MaxFileSize)
}

// checkLimits reports the first place where src exceeds a limit, or nil.
// It is a small scanner that knows just enough of HCL's lexical structure
// (comments, quoted strings, heredocs, template interpolations, numbers and
// identifiers) to count nesting where the parser would; it runs in time
// linear in len(src) and stops at the first problem. On input it gets
// wrong (only malformed input, which the parser then reports) it may miss
// a problem the parser survives anyway, since every count is bounded by
// the file size.
func checkLimits(src []byte, filename string) *hcl.Diagnostic {
	if len(src) > MaxFileSize {
		return limitDiag(src, filename, MaxFileSize, MaxFileSize+1, "Configuration file too large",
			fmt.Sprintf("This file is larger than %d bytes (1 MiB), the most pgseq reads from one configuration file; it is read no further than here. Split the configuration into several files in one directory: pgseq reads them as one configuration.", MaxFileSize))
	}
	s := limitScanner{src: src}
	return s.scan(filename)
}

// frameKind is what a limitScanner frame was opened by.
type frameKind int

const (
	frameBracket frameKind = iota // (, [ or {
	frameInterp                   // ${ or %{ inside a quoted string or heredoc
	frameQuoted                   // "
	frameHeredoc                  // <<MARKER or <<-MARKER
)

// frame is an open bracket, interpolation or string.
type frame struct {
	kind frameKind
	// start is the offset of the token that opened the frame.
	start int
	// content is the offset of a string's first byte of content.
	content int
	// unary counts the unary operators pending before the frame opened;
	// they apply to the frame's value once it closes.
	unary int
	// marker ends a heredoc.
	marker []byte
}

// limitScanner walks a file's bytes for checkLimits.
type limitScanner struct {
	src   []byte
	stack []frame
	// depth counts the open brackets and interpolations and the pending
	// unary operators: how deeply the parser will recurse.
	depth int
	// unary counts the unary operators since the last operand at the
	// current level; they are part of depth.
	unary int
	// operand is whether the last token ended an operand, after which a
	// minus is binary.
	operand bool
}

func (s *limitScanner) scan(filename string) *hcl.Diagnostic {
	i := 0
	for i < len(s.src) {
		if n := len(s.stack); n > 0 && (s.stack[n-1].kind == frameQuoted || s.stack[n-1].kind == frameHeredoc) {
			top := &s.stack[n-1]
			if i-top.content > MaxStringLength {
				what := "quoted string"
				if top.kind == frameHeredoc {
					what = "heredoc"
				}
				return limitDiag(s.src, filename, top.start, top.start+1, "String too long",
					fmt.Sprintf("This %s is longer than %d bytes, the most pgseq reads. pgseq's strings are names, durations and prefixes: a few dozen characters.", what, MaxStringLength))
			}
			var diag *hcl.Diagnostic
			i, diag = s.template(i, filename)
			if diag != nil {
				return diag
			}
			continue
		}
		var diag *hcl.Diagnostic
		i, diag = s.expression(i, filename)
		if diag != nil {
			return diag
		}
	}
	return nil
}

// expression scans the token at i outside strings and returns the offset
// after it.
func (s *limitScanner) expression(i int, filename string) (int, *hcl.Diagnostic) {
	src := s.src
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		return i + 1, nil
	case c == '#' || (c == '/' && i+1 < len(src) && src[i+1] == '/'):
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j, nil
		}
		return len(src), nil
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
			return i + 2 + j + 2, nil
		}
		return len(src), nil
	case c == '"':
		s.push(frame{kind: frameQuoted, start: i, content: i + 1})
		return i + 1, nil
	case c == '<':
		if marker, body, ok := heredocHeader(src, i); ok {
			s.push(frame{kind: frameHeredoc, start: i, content: body, marker: marker})
			return body, nil
		}
	case c == '(' || c == '[' || c == '{':
		s.push(frame{kind: frameBracket, start: i})
		if s.depth > MaxNesting {
			return i, s.nestingDiag(filename, i)
		}
		return i + 1, nil
	case c == ')' || c == ']' || c == '}':
		s.pop()
		return i + 1, nil
	case c >= '0' && c <= '9':
		end := numberEnd(src, i)
		if end-i > MaxNumberLength {
			return i, limitDiag(src, filename, i, end, "Number literal too long",
				fmt.Sprintf("This number is written with %d characters; pgseq reads number literals of at most %d. Every number pgseq takes has at most 19 digits.", end-i, MaxNumberLength))
		}
		s.endOperand()
		return end, nil
	case isIdentStart(c):
		j := i + 1
		for j < len(src) && isIdentPart(src[j]) {
			j++
		}
		if j-i > MaxIdentifierLength {
			return i, limitDiag(src, filename, i, j, "Identifier too long",
				fmt.Sprintf("This name is %d bytes long; pgseq reads identifiers of at most %d bytes. pgseq's argument and block names are a few letters, and a name written as a label is at most %d bytes.", j-i, MaxIdentifierLength, MaxTaskNameLen))
		}
		s.endOperand()
		return j, nil
	case c == '-' && !s.operand, c == '!' && (i+1 >= len(src) || src[i+1] != '='):
		s.unary++
		s.depth++
		if s.depth > MaxNesting {
			return i, s.nestingDiag(filename, i)
		}
		return i + 1, nil
	}
	// Any other operator or punctuation.
	s.operand = false
	if c == '!' {
		return i + 2, nil // !=
	}
	return i + 1, nil
}

// template scans a quoted string's or a heredoc's content at i and returns
// the offset after what it consumed.
func (s *limitScanner) template(i int, filename string) (int, *hcl.Diagnostic) {
	src := s.src
	top := &s.stack[len(s.stack)-1]
	c := src[i]
	if top.kind == frameHeredoc && (i == 0 || src[i-1] == '\n') {
		if end, ok := heredocEnd(src, i, top.marker); ok {
			s.pop()
			return end, nil
		}
	}
	switch {
	case top.kind == frameQuoted && c == '"':
		s.pop()
		return i + 1, nil
	case top.kind == frameQuoted && c == '\n':
		// An unterminated string: the parser reports it and goes on
		// after the line.
		s.pop()
		return i + 1, nil
	case top.kind == frameQuoted && c == '\\':
		return i + 2, nil
	case (c == '$' || c == '%') && i+2 < len(src) && src[i+1] == c && src[i+2] == '{':
		return i + 3, nil // $${ and %%{ are literal
	case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
		s.push(frame{kind: frameInterp, start: i})
		if s.depth > MaxNesting {
			return i, s.nestingDiag(filename, i)
		}
		return i + 2, nil
	}
	return i + 1, nil
}

// push opens a frame. Brackets and interpolations add a nesting level and
// carry the unary operators pending before them.
func (s *limitScanner) push(f frame) {
	if f.kind == frameBracket || f.kind == frameInterp {
		s.depth++
	}
	f.unary = s.unary
	s.unary = 0
	s.operand = false
	s.stack = append(s.stack, f)
}

// pop closes the innermost frame, whatever opened it: mismatched brackets
// are the parser's to report. The closed frame is an operand, which ends
// the unary operators pending before it.
func (s *limitScanner) pop() {
	n := len(s.stack)
	if n == 0 {
		s.operand = true
		return
	}
	f := s.stack[n-1]
	s.stack = s.stack[:n-1]
	s.depth -= s.unary + f.unary
	if f.kind == frameBracket || f.kind == frameInterp {
		s.depth--
	}
	s.unary = 0
	s.operand = true
}

// endOperand records a number or an identifier.
func (s *limitScanner) endOperand() {
	s.depth -= s.unary
	s.unary = 0
	s.operand = true
}

func (s *limitScanner) nestingDiag(filename string, i int) *hcl.Diagnostic {
	return limitDiag(s.src, filename, i, i+1, "Nesting too deep",
		fmt.Sprintf("Brackets, braces, parentheses, interpolations and unary operators nest more than %d levels deep here, the most pgseq reads. A pgseq configuration needs only a few: a block, a nested block and a list.", MaxNesting))
}

// numberEnd returns the offset after the number literal at i: digits, an
// optional fraction and an optional exponent.
func numberEnd(src []byte, i int) int {
	digits := func(j int) int {
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		j = digits(j + 1)
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = digits(k)
		}
	}
	return j
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart reports whether c starts an identifier; any byte of a
// multi-byte character counts, which is enough to skip over it.
func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '-' }

// heredocHeader recognises <<MARKER or <<-MARKER ending its line at i. It
// returns the marker and the offset of the heredoc's first line.
func heredocHeader(src []byte, i int) (marker []byte, body int, ok bool) {
	j := i + 2
	if j > len(src) || src[i+1] != '<' {
		return nil, 0, false
	}
	if j < len(src) && src[j] == '-' {
		j++
	}
	start := j
	if j >= len(src) || !isIdentStart(src[j]) {
		return nil, 0, false
	}
	for j < len(src) && isIdentPart(src[j]) {
		j++
	}
	marker = src[start:j]
	if j < len(src) && src[j] == '\r' {
		j++
	}
	if j >= len(src) || src[j] != '\n' {
		return nil, 0, false
	}
	return marker, j + 1, true
}

// heredocEnd reports whether the line at i closes a heredoc: the marker
// alone on its line, optionally indented. It returns the offset after the
// marker.
func heredocEnd(src []byte, i int, marker []byte) (int, bool) {
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if !bytes.HasPrefix(src[j:], marker) {
		return 0, false
	}
	end := j + len(marker)
	k := end
	for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
		k++
	}
	if k < len(src) && src[k] != '\n' {
		return 0, false
	}
	return end, true
}

// limitDiag builds the diagnostic of an exceeded limit at src[start:end].
func limitDiag(src []byte, filename string, start, end int, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject: &hcl.Range{
			Filename: filename,
			Start:    posAt(src, start),
			End:      posAt(src, end),
		},
	}
}

// posAt returns the position of byte offset i of src (at most len(src)):
// its line, and its column counted in characters.
func posAt(src []byte, i int) hcl.Pos {
	i = min(i, len(src))
	for i > 0 && i < len(src) && !utf8.RuneStart(src[i]) {
		i--
	}
	lineStart := bytes.LastIndexByte(src[:i], '\n') + 1
	return hcl.Pos{
		Line:   bytes.Count(src[:lineStart], []byte("\n")) + 1,
		Column: utf8.RuneCount(src[lineStart:i]) + 1,
		Byte:   i,
	}
}
