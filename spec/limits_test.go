package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"
)

// TestLimitsRejectBeforeParsing checks inputs that would crash or stall
// the HCL parser: each is refused with one located diagnostic, and the file
// is never parsed (its Body stays nil), whatever its size.
func TestLimitsRejectBeforeParsing(t *testing.T) {
	t.Parallel()
	parens := strings.Repeat("(", 70_000)
	cases := []struct {
		name string
		src  string
		want string // line:col: summary
	}{
		{"70,000 nested parentheses", "x = " + parens + "1" + strings.Repeat(")", 70_000) + "\n",
			"1:37: Nesting too deep"}, // the 33rd parenthesis
		{"unclosed parentheses", "x = " + parens + "\n", "1:37: Nesting too deep"},
		{"nested lists", "queue \"a\" {\n  batch_size = " + strings.Repeat("[", 40) + "\n}\n", "2:47: Nesting too deep"},
		{"nested blocks", strings.Repeat("a {\n", 40), "33:3: Nesting too deep"},
		{"nested interpolations", "x = \"" + strings.Repeat("${\"", 40) + "\n", "1:102: Nesting too deep"},
		{"unary operators", "x = " + strings.Repeat("-", 70_000) + "1\n", "1:37: Nesting too deep"},
		{"unary operators and parentheses", "x = " + strings.Repeat("!(", 20) + "\n", "1:37: Nesting too deep"},
		{"a million-digit number", "task \"a\" {\n  concurrency = " + strings.Repeat("1", 1_000_000) + "\n}\n",
			"2:17: Number literal too long"},
		{"a long fraction", "x = 1." + strings.Repeat("5", 100) + "\n", "1:5: Number literal too long"},
		{"a long exponent", "x = 1e" + strings.Repeat("9", 100) + "\n", "1:5: Number literal too long"},
		{"a ten-million-digit number", "x = " + strings.Repeat("1", 10_000_000) + "\n",
			"1:1048577: Configuration file too large"},
		{"a long string", "queue \"" + strings.Repeat("q", 5000) + "\" {}\n", "1:7: String too long"},
		{"a long heredoc", "x = <<EOT\n" + strings.Repeat("a\n", 3000) + "EOT\n", "1:5: String too long"},
		{"a long identifier", "task " + strings.Repeat("t", 300) + " {}\n", "1:6: Identifier too long"},
		{"a large file", strings.Repeat("# comment\n", MaxFileSize/10+1), "104858:7: Configuration file too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Parse(map[string][]byte{"main.hcl": []byte(tc.src)})
			require.Equal(t, []string{tc.want}, diagLines(diags))
			require.Equal(t, "main.hcl", diags[0].Subject.Filename)
			require.NotEmpty(t, diags[0].Detail)
			f := cfg.Files["main.hcl"]
			require.NotNil(t, f, "the source is kept for the snippet")
			require.Nil(t, f.Body, "the file must not be parsed")

			_, diags = Format([]byte(tc.src), "main.hcl")
			require.Equal(t, []string{tc.want}, diagLines(diags), "fmt checks the same limits")

			// The printed diagnostic never echoes the input back in full.
			var out bytes.Buffer
			require.NoError(t, WriteDiagnostics(&out, diags, cfg.Files))
			require.Less(t, out.Len(), 2000, out.String())
		})
	}
}

// TestLimitsAllowWhatTheyDoNotCount checks that the pre-scan counts only
// what the parser nests: brackets in comments, strings and heredocs, long
// numbers inside names, and nesting up to the limit are fine.
func TestLimitsAllowWhatTheyDoNotCount(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	for name, src := range map[string]string{
		"nesting at the limit":         "x = " + deep + "\n",
		"unary operators at the limit": "x = " + strings.Repeat("-", MaxNesting) + "1\n",
		"binary operators":             "x = 1" + strings.Repeat(" - 1", 1000) + "\n",
		"a hash comment":               "# " + strings.Repeat("(", 100) + "\nqueue \"a\" {}\n",
		"a slash comment":              "// " + strings.Repeat("{", 100) + "\nqueue \"a\" {}\n",
		"a block comment":              "/* " + strings.Repeat("[", 100) + "\n" + strings.Repeat("(", 100) + " */\nqueue \"a\" {}\n",
		"a string":                     "x = \"" + strings.Repeat("([{", 100) + "\\\"\"\n",
		"escaped interpolations":       "x = \"" + strings.Repeat("$${", 100) + strings.Repeat("%%{", 100) + "\"\n",
		"an interpolation closing":     "x = \"${a}" + strings.Repeat("(", 100) + "\"\n",
		"a heredoc":                    "x = <<EOT\n" + strings.Repeat("((((\n", 100) + "EOT\ny = <<-END\n  [[[[\n  END\n",
		"digits in a name":             "x = a" + strings.Repeat("1", 200) + "\n",
		"long numbers in a string":     "x = \"" + strings.Repeat("1", 1000) + "\"\n",
		"an unterminated string":       "x = \"" + strings.Repeat("(", 10) + "\ny = " + strings.Repeat("(", 20) + strings.Repeat(")", 20) + "\n",
		"the longest number":           "x = " + strings.Repeat("1", MaxNumberLength) + "\n",
		"the longest identifier":       strings.Repeat("a", MaxIdentifierLength) + " = 1\n",
		"the longest string":           "x = \"" + strings.Repeat("s", MaxStringLength) + "\"\n",
	} {
		require.Nil(t, checkLimits([]byte(src), "main.hcl"), name)
	}
	big := bytes.Repeat([]byte("#"), MaxFileSize)
	require.Nil(t, checkLimits(big, "main.hcl"), "a file of exactly MaxFileSize bytes")
}

// TestLoadReadsNoMoreThanTheLimit checks that Load reports a file larger
// than MaxFileSize without reading all of it.
func TestLoadReadsNoMoreThanTheLimit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.hcl")
	require.NoError(t, os.WriteFile(path, []byte("x = "+strings.Repeat("1", 10_000_000)+"\n"), 0o644))
	cfg, diags := Load(path)
	require.Equal(t, []string{"1:1048577: Configuration file too large"}, diagLines(diags))
	require.Equal(t, MaxFileSize+1, len(cfg.Files[path].Bytes))

	src, err := ReadFile(path)
	require.NoError(t, err)
	require.Len(t, src, MaxFileSize+1)
}

func TestPosAt(t *testing.T) {
	t.Parallel()
	src := []byte("ab\nçd\n")
	for _, tc := range []struct {
		offset int
		want   hcl.Pos
	}{
		{0, hcl.Pos{Line: 1, Column: 1, Byte: 0}},
		{2, hcl.Pos{Line: 1, Column: 3, Byte: 2}},
		{3, hcl.Pos{Line: 2, Column: 1, Byte: 3}},
		{5, hcl.Pos{Line: 2, Column: 2, Byte: 5}}, // after the two-byte ç
		{4, hcl.Pos{Line: 2, Column: 1, Byte: 3}}, // inside ç: its start
		{7, hcl.Pos{Line: 3, Column: 1, Byte: 7}},
		{99, hcl.Pos{Line: 3, Column: 1, Byte: 7}},
	} {
		require.Equal(t, tc.want, posAt(src, tc.offset), "offset %d", tc.offset)
	}
}

// TestWriteDiagnosticsCutsLongLines checks that a snippet shows at most
// maxSnippetWidth characters of a line, around the range, with carets
// still under it.
func TestWriteDiagnosticsCutsLongLines(t *testing.T) {
	t.Parallel()
	a, c := strings.Repeat("a", 250), strings.Repeat("c", 250)
	for _, tc := range []struct {
		name string
		src  string
		r    hcl.Range
		want string
	}{
		{
			name: "range in the middle",
			src:  a + "BAD" + c + "\n",
			r:    hcl.Range{Start: hcl.Pos{Line: 1, Column: 251, Byte: 250}, End: hcl.Pos{Line: 1, Column: 254, Byte: 253}},
			want: "  1 | …" + a[:20] + "BAD" + c[:177] + "…\n" +
				"    |  " + strings.Repeat(" ", 20) + "^^^\n",
		},
		{
			name: "range at the start, running past the part shown",
			src:  a + c + "\n",
			r:    hcl.Range{Start: hcl.Pos{Line: 1, Column: 1, Byte: 0}, End: hcl.Pos{Line: 1, Column: 501, Byte: 500}},
			want: "  1 | " + a[:200] + "…\n" +
				"    | " + strings.Repeat("^", 200) + "\n",
		},
		{
			name: "range at the end of the line",
			src:  a + c,
			r:    hcl.Range{Start: hcl.Pos{Line: 1, Column: 501, Byte: 500}, End: hcl.Pos{Line: 1, Column: 501, Byte: 500}},
			want: "  1 | …" + c[50:] + "\n" +
				"    |  " + strings.Repeat(" ", 200) + "^\n",
		},
	} {
		tc.r.Filename = "long.hcl"
		var out bytes.Buffer
		diags := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Something", Subject: &tc.r}}
		require.NoError(t, WriteDiagnostics(&out, diags, map[string]*hcl.File{"long.hcl": {Bytes: []byte(tc.src)}}))
		_, snippet, _ := strings.Cut(out.String(), "\n\n")
		require.Equal(t, tc.want, snippet, tc.name)
	}
}
