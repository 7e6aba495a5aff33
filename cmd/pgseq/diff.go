package main

import (
	"fmt"
	"os"
	"strings"
)

// diffContext is the number of unchanged lines a unified diff shows around
// each change, as diff -u and git diff do.
const diffContext = 3

// unifiedDiff returns a unified diff that turns old into new, headed
// "--- oldName" and "+++ newName", with diffContext lines of context around
// each change and hunks closer than 2×diffContext lines merged; "" when the
// two are equal. Lines are compared with their line endings, so a change of
// line ending is a change; a last line without a newline is followed by
// "\ No newline at end of file", as diff writes it. Labels are written as
// given: a name followed by a tab and a note ("config.hcl\t(formatted)")
// reads back in patch and git apply as the name alone.
//
// The edit script is a longest common subsequence of the lines (see
// diffLines), so what is shown as changed is as little as possible.
func unifiedDiff(oldName, newName string, old, new []byte) string {
	a, b := splitDiffLines(string(old)), splitDiffLines(string(new))
	ops := diffLines(a, b)
	hunks := diffHunks(ops, diffContext)
	if len(hunks) == 0 {
		return ""
	}
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks {
		first := ops[h.from]
		var na, nb int
		for _, op := range ops[h.from:h.to] {
			if op.kind != diffInsert {
				na++
			}
			if op.kind != diffDelete {
				nb++
			}
		}
		fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(first.a, na), hunkRange(first.b, nb))
		for _, op := range ops[h.from:h.to] {
			var line string
			var sym byte
			switch op.kind {
			case diffEqual:
				sym, line = ' ', a[op.a]
			case diffDelete:
				sym, line = '-', a[op.a]
			case diffInsert:
				sym, line = '+', b[op.b]
			}
			w.WriteByte(sym)
			w.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				w.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return w.String()
}

// hunkRange writes one side of a hunk header: "start,count", or "start"
// when count is 1. from is the 0-based index of the hunk's first line on
// that side; an empty side is numbered by the line before it (0 for the
// start of the file), as diff numbers it.
func hunkRange(from, count int) string {
	start := from + 1
	if count == 0 {
		start = from
	}
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// splitDiffLines cuts s after each "\n"; the last line has no "\n" when s does
// not end with one. "" has no lines.
func splitDiffLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

type diffKind int8

const (
	diffEqual diffKind = iota
	diffDelete
	diffInsert
)

// diffOp is one line of the edit script. a and b are the line's index in
// the old and the new lines; for an insert, a is the index in the old
// lines before which it goes, and for a delete, b the index in the new
// lines at which it was.
type diffOp struct {
	kind diffKind
	a, b int
}

// diffLines returns an edit script from a to b that keeps a longest common
// subsequence of their lines and deletes and inserts the rest. Within each
// run of changed lines the deletions come before the insertions, as diff
// shows them.
//
// The subsequence is found by Hirschberg's algorithm: the classic dynamic
// programme over the lines, in O(len(a)·len(b)) time but O(len(a)+len(b))
// space, so a large file rewritten throughout costs time, never a table of
// len(a)·len(b) cells. The common prefix and suffix are taken off first,
// which leaves little for it to do on a file whose changes are few.
func diffLines(a, b []string) []diffOp {
	// Compare lines as small integers.
	ids := map[string]int{}
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	var kinds []diffKind
	lcsScript(x, y, &kinds)

	// Number the script and put the deletions of each changed run first.
	ops := make([]diffOp, 0, len(kinds))
	var i, j int
	for k := 0; k < len(kinds); {
		if kinds[k] == diffEqual {
			ops = append(ops, diffOp{diffEqual, i, j})
			i, j, k = i+1, j+1, k+1
			continue
		}
		end := k
		for end < len(kinds) && kinds[end] != diffEqual {
			end++
		}
		dels, ins := 0, 0
		for _, kind := range kinds[k:end] {
			if kind == diffDelete {
				dels++
			} else {
				ins++
			}
		}
		for n := 0; n < dels; n++ {
			ops = append(ops, diffOp{diffDelete, i + n, j})
		}
		for n := 0; n < ins; n++ {
			ops = append(ops, diffOp{diffInsert, i + dels, j + n})
		}
		i, j, k = i+dels, j+ins, end
	}
	return ops
}

// lcsScript appends to out the edit script of a longest common subsequence
// of a and b (Hirschberg).
func lcsScript(a, b []int, out *[]diffKind) {
	// Common prefix and suffix.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for range pre {
		*out = append(*out, diffEqual)
	}
	a, b = a[pre:len(a)-suf], b[pre:len(b)-suf]

	switch {
	case len(a) == 0:
		for range b {
			*out = append(*out, diffInsert)
		}
	case len(b) == 0:
		for range a {
			*out = append(*out, diffDelete)
		}
	case len(a) == 1:
		// a[0] is in the subsequence if b has it anywhere.
		at := -1
		for j, v := range b {
			if v == a[0] {
				at = j
				break
			}
		}
		if at < 0 {
			*out = append(*out, diffDelete)
			for range b {
				*out = append(*out, diffInsert)
			}
			break
		}
		for range at {
			*out = append(*out, diffInsert)
		}
		*out = append(*out, diffEqual)
		for range b[at+1:] {
			*out = append(*out, diffInsert)
		}
	default:
		// Split a in half; split b where the LCS of the first half with
		// b's start plus that of the second half with b's end is longest.
		mid := len(a) / 2
		fwd := lcsRow(a[:mid], b, false)
		bwd := lcsRow(a[mid:], b, true)
		cut, best := 0, -1
		for j := 0; j <= len(b); j++ {
			if l := fwd[j] + bwd[len(b)-j]; l > best {
				cut, best = j, l
			}
		}
		lcsScript(a[:mid], b[:cut], out)
		lcsScript(a[mid:], b[cut:], out)
	}
	for range suf {
		*out = append(*out, diffEqual)
	}
}

// lcsRow returns row[j] = the length of the LCS of a and the first j
// elements of b — or, reversed, of a and the last j elements of b — in
// O(len(b)) space.
func lcsRow(a, b []int, reversed bool) []int {
	at := func(s []int, i int) int {
		if reversed {
			return s[len(s)-1-i]
		}
		return s[i]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		ai := at(a, i)
		for j := range b {
			if ai == at(b, j) {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev
}

// diffHunk is the span ops[from:to] of one hunk.
type diffHunk struct{ from, to int }

// diffHunks groups the changes of ops into hunks with context unchanged
// lines before and after; changes with at most 2×context unchanged lines
// between them share a hunk, as in diff -u.
func diffHunks(ops []diffOp, context int) []diffHunk {
	var hunks []diffHunk
	for i := 0; i < len(ops); {
		if ops[i].kind == diffEqual {
			i++
			continue
		}
		// A change at i: extend the hunk over every change reached
		// through at most 2×context unchanged lines.
		last := i
		for j := i + 1; j < len(ops); j++ {
			if ops[j].kind == diffEqual {
				if j-last > 2*context {
					break
				}
				continue
			}
			last = j
		}
		h := diffHunk{from: max(0, i-context), to: min(len(ops), last+1+context)}
		hunks = append(hunks, h)
		i = last + 1
	}
	return hunks
}

// colorDiff colours a unified diff for a terminal: headers bold, removed
// lines red, added lines green, hunk headers cyan.
func colorDiff(d string) string {
	var b strings.Builder
	for _, line := range splitDiffLines(d) {
		body := strings.TrimSuffix(line, "\n")
		code := ""
		switch {
		case strings.HasPrefix(body, "--- "), strings.HasPrefix(body, "+++ "):
			code = "1"
		case strings.HasPrefix(body, "@@"):
			code = "36"
		case strings.HasPrefix(body, "-"):
			code = "31"
		case strings.HasPrefix(body, "+"):
			code = "32"
		}
		if code == "" {
			b.WriteString(line)
			continue
		}
		b.WriteString("\x1b[" + code + "m" + body + "\x1b[0m")
		if len(body) < len(line) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// colorOutput reports whether w is a terminal that may be coloured: never
// with NO_COLOR set (https://no-color.org) or TERM=dumb.
func colorOutput(w any) bool {
	return isTerminal(w) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
