package main

import (
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	// lines makes "l1\n".."ln\n", so that contexts are easy to read.
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "l%d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n", want: ""},
		{name: "both empty", old: "", new: "", want: ""},
		{name: "from empty", old: "", new: "a\nb\n", want: `--- old
+++ new
@@ -0,0 +1,2 @@
+a
+b
`},
		{name: "to empty", old: "a\n", new: "", want: `--- old
+++ new
@@ -1 +0,0 @@
-a
`},
		{name: "one line changed in the middle", old: lines(1, 9), new: strings.Replace(lines(1, 9), "l5\n", "L5\n", 1), want: `--- old
+++ new
@@ -2,7 +2,7 @@
 l2
 l3
 l4
-l5
+L5
 l6
 l7
 l8
`},
		{name: "change at the start", old: lines(1, 6), new: "l0\n" + lines(2, 6), want: `--- old
+++ new
@@ -1,4 +1,4 @@
-l1
+l0
 l2
 l3
 l4
`},
		{name: "insert at the end", old: lines(1, 5), new: lines(1, 6), want: `--- old
+++ new
@@ -3,3 +3,4 @@
 l3
 l4
 l5
+l6
`},
		{name: "pure insertion in the middle numbers the empty side by the line before", old: "a\nb\n", new: "a\nx\nb\n", want: `--- old
+++ new
@@ -1,2 +1,3 @@
 a
+x
 b
`},
		{name: "deletion with no context before", old: "x\n" + lines(1, 5), new: lines(1, 5), want: `--- old
+++ new
@@ -1,4 +1,3 @@
-x
 l1
 l2
 l3
`},
		// Six unchanged lines between two changes: the contexts meet, one hunk.
		{name: "changes 6 apart share a hunk", old: lines(1, 8), new: "L1\n" + lines(2, 7) + "L8\n", want: `--- old
+++ new
@@ -1,8 +1,8 @@
-l1
+L1
 l2
 l3
 l4
 l5
 l6
 l7
-l8
+L8
`},
		// Seven apart: two hunks.
		{name: "changes 7 apart make two hunks", old: lines(1, 9), new: "L1\n" + lines(2, 8) + "L9\n", want: `--- old
+++ new
@@ -1,4 +1,4 @@
-l1
+L1
 l2
 l3
 l4
@@ -6,4 +6,4 @@
 l6
 l7
 l8
-l9
+L9
`},
		{name: "deletions before insertions in a changed run", old: "a\nb\nc\nd\n", new: "a\nB\nC\nd\n", want: `--- old
+++ new
@@ -1,4 +1,4 @@
 a
-b
-c
+B
+C
 d
`},
		{name: "a missing last newline is marked", old: "a\nb", new: "a\nb\n", want: `--- old
+++ new
@@ -1,2 +1,2 @@
 a
-b
\ No newline at end of file
+b
`},
		{name: "line endings are compared", old: "a\r\nb\r\n", new: "a\nb\r\n", want: "--- old\n+++ new\n@@ -1,2 +1,2 @@\n-a\r\n+a\n b\r\n"},
		{name: "a formatted HCL file", old: "queue \"default\" {\nbatch_size=5\n    max_retries   =  2\n}\n",
			new: "queue \"default\" {\n  batch_size  = 5\n  max_retries = 2\n}\n", want: `--- old
+++ new
@@ -1,4 +1,4 @@
 queue "default" {
-batch_size=5
-    max_retries   =  2
+  batch_size  = 5
+  max_retries = 2
 }
`},
		{name: "moved block keeps the longest common part", old: "a\nb\nc\nd\ne\n", new: "c\nd\ne\na\nb\n", want: `--- old
+++ new
@@ -1,5 +1,5 @@
-a
-b
 c
 d
 e
+a
+b
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := unifiedDiff("old", "new", []byte(tt.old), []byte(tt.new))
			require.Equal(t, tt.want, got)
			if got != "" {
				require.Equal(t, tt.new, applyUnifiedDiff(t, tt.old, got))
			}
		})
	}
}

// Random inputs over a small alphabet (so that lines repeat): the script
// turns a into b, keeps a longest common subsequence (checked against the
// plain dynamic programme), and the printed diff applies back.
func TestDiffLinesIsMinimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	gen := func() []string {
		n := rng.Intn(30)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+rng.Intn(5))) + "\n"
		}
		return out
	}
	for iter := 0; iter < 2000; iter++ {
		a, b := gen(), gen()
		ops := diffLines(a, b)
		var got []string
		equal := 0
		ai, bi := 0, 0
		for _, op := range ops {
			switch op.kind {
			case diffEqual:
				require.Equal(t, a[op.a], b[op.b])
				require.Equal(t, []int{ai, bi}, []int{op.a, op.b})
				got = append(got, a[op.a])
				equal++
				ai, bi = ai+1, bi+1
			case diffDelete:
				require.Equal(t, ai, op.a)
				ai++
			case diffInsert:
				require.Equal(t, bi, op.b)
				got = append(got, b[op.b])
				bi++
			}
		}
		require.Equal(t, []int{len(a), len(b)}, []int{ai, bi})
		require.Equal(t, strings.Join(b, ""), strings.Join(got, ""))
		require.Equal(t, lcsLength(a, b), equal, "a=%q b=%q", a, b)

		old, new := strings.Join(a, ""), strings.Join(b, "")
		if d := unifiedDiff("old", "new", []byte(old), []byte(new)); d != "" {
			require.Equal(t, new, applyUnifiedDiff(t, old, d), "a=%q b=%q\n%s", a, b, d)
		} else {
			require.Equal(t, old, new)
		}
	}
}

// A large file changed throughout is diffed without a table of
// len(a)·len(b) cells.
func TestDiffLinesLargeInput(t *testing.T) {
	t.Parallel()
	a := make([]string, 4000)
	b := make([]string, 4000)
	for i := range a {
		a[i] = fmt.Sprintf("line %d\n", i)
		b[i] = fmt.Sprintf("line %d\n", i)
		if i%2 == 0 {
			b[i] = fmt.Sprintf("changed %d\n", i)
		}
	}
	ops := diffLines(a, b)
	equal := 0
	for _, op := range ops {
		if op.kind == diffEqual {
			equal++
		}
	}
	require.Equal(t, 2000, equal)
}

func lcsLength(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				dp[i][j] = dp[i-1][j-1] + 1
			} else {
				dp[i][j] = max(dp[i-1][j], dp[i][j-1])
			}
		}
	}
	return dp[len(a)][len(b)]
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyUnifiedDiff applies d to old strictly, as patch would with no
// fuzz: each hunk's line numbers, counts and context must match.
func applyUnifiedDiff(t *testing.T, old, d string) string {
	t.Helper()
	src := splitDiffLines(old)
	lines := splitDiffLines(d)
	require.GreaterOrEqual(t, len(lines), 3)
	require.True(t, strings.HasPrefix(lines[0], "--- "), lines[0])
	require.True(t, strings.HasPrefix(lines[1], "+++ "), lines[1])
	var out []string
	next := 0 // index in src of the next line not yet copied
	num := func(s string) int {
		if s == "" {
			return 1
		}
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	i := 2
	for i < len(lines) {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		require.NotNil(t, m, "hunk header: %q", lines[i])
		aStart, aCount, bStart, bCount := num(m[1]), num(m[2]), num(m[3]), num(m[4])
		from := aStart - 1
		if aCount == 0 {
			from = aStart
		}
		require.GreaterOrEqual(t, from, next, "hunks in order")
		out = append(out, src[next:from]...)
		if bCount == 0 {
			require.Equal(t, bStart, len(out), "an empty new side is numbered by the line before")
		} else {
			require.Equal(t, bStart-1, len(out), "new start")
		}
		next = from
		i++
		var na, nb int
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			text := l[1:]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				require.Equal(t, src[next], text, "context")
				out = append(out, text)
				next++
				na++
				nb++
			case '-':
				require.Equal(t, src[next], text, "deleted line")
				next++
				na++
			case '+':
				out = append(out, text)
				nb++
			default:
				t.Fatalf("bad diff line %q", l)
			}
			i++
		}
		require.Equal(t, []int{aCount, bCount}, []int{na, nb}, "hunk counts")
	}
	out = append(out, src[next:]...)
	return strings.Join(out, "")
}

func TestColorDiff(t *testing.T) {
	t.Parallel()
	d := unifiedDiff("old", "new", []byte("a\nb\n"), []byte("a\nc\n"))
	// Only a terminal is coloured: never a pipe, a file or a buffer.
	require.False(t, colorOutput(&strings.Builder{}))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, colorOutput(f))
	require.Equal(t, "\x1b[1m--- old\x1b[0m\n\x1b[1m+++ new\x1b[0m\n\x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n a\n\x1b[31m-b\x1b[0m\n\x1b[32m+c\x1b[0m\n", colorDiff(d))
}
