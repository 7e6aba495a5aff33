package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every control character but newline and tab
// replaced by a visible escape: ESC (so CSI and OSC sequences), BEL,
// carriage return, backspace and the other C0 controls, DEL and the C1
// controls (U+0080 to U+009F, among them the one-character CSI U+009B)
// as \x1b, \x07, \r …, the Unicode bidirectional controls (which reorder
// what a terminal shows) as \u202e …, and bytes that are not UTF-8 as
// \xff. A plan file is text anyone can write and re-sign: what it says
// must reach the terminal as text, never as commands to it.
func Sanitize(s string) string {
	if !needsSanitizing(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsSanitizing reports whether Sanitize changes s.
func needsSanitizing(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune reports whether r must not reach a terminal as it is: a C0
// control other than newline and tab, DEL, a C1 control, or a
// bidirectional control.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	}
	return false
}
