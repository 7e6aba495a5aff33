package spec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
)

// wantRE matches an expected diagnostic in an error file: "# want: 3:17: Invalid concurrency".
var wantRE = regexp.MustCompile(`(?m)^#\s*want:\s*(\d+:\d+: .+?)\s*$`)

// TestErrorFiles checks that each file in testdata/error-files reports
// exactly the diagnostics its "# want:" comments list, each with a source
// range in that file and a detail.
func TestErrorFiles(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/error-files/*.hcl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 20)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".hcl"), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			var want []string
			for _, m := range wantRE.FindAllStringSubmatch(string(src), -1) {
				want = append(want, m[1])
			}
			require.NotEmpty(t, want, "%s has no # want: comment", path)

			_, diags := Load(path)
			require.Equal(t, want, diagLines(diags))
			for _, d := range diags {
				require.Equal(t, hcl.DiagError, d.Severity, d.Summary)
				require.NotNil(t, d.Subject, d.Summary)
				require.Equal(t, path, d.Subject.Filename)
				require.NotEmpty(t, d.Detail, d.Summary)
			}
		})
	}
}

// diagLines renders diagnostics as "line:col: Summary".
func diagLines(diags hcl.Diagnostics) []string {
	var lines []string
	for _, d := range diags {
		if d.Subject == nil {
			lines = append(lines, d.Summary)
			continue
		}
		lines = append(lines, fmt.Sprintf("%d:%d: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
	}
	return lines
}

// TestWriteDiagnosticsGolden compares the printed diagnostics of every
// error file, and of a few multi-error inputs, with
// testdata/diagnostics/NAME.txt.
func TestWriteDiagnosticsGolden(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"many-errors":      {"testdata/many-errors.hcl"},
		"tabs":             {"testdata/tabs.hcl"},
		"dup-across-files": {"testdata/dup-across-files"},
		"missing-path":     {"testdata/no-such-file.hcl"},
	}
	paths, err := filepath.Glob("testdata/error-files/*.hcl")
	require.NoError(t, err)
	for _, p := range paths {
		cases["error-files-"+strings.TrimSuffix(filepath.Base(p), ".hcl")] = []string{p}
	}
	for name, paths := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Load(paths...)
			require.True(t, diags.HasErrors())
			var out bytes.Buffer
			require.NoError(t, WriteDiagnostics(&out, diags, cfg.Files))
			golden.Check(t, filepath.Join("testdata", "diagnostics", name+".txt"), out.String())
		})
	}
}

func TestWriteDiagnosticsWithoutSource(t *testing.T) {
	t.Parallel()
	subject := hcl.Range{Filename: "gone.hcl", Start: hcl.Pos{Line: 2, Column: 3, Byte: 10}, End: hcl.Pos{Line: 2, Column: 5, Byte: 12}}
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagWarning, Summary: "Something odd", Detail: "Look at it.", Subject: &subject},
		{Severity: hcl.DiagError, Summary: "No configuration files"},
	}
	var out bytes.Buffer
	require.NoError(t, WriteDiagnostics(&out, diags, nil))
	require.Equal(t, "gone.hcl:2:3: warning: Something odd\n\nLook at it.\n\nerror: No configuration files\n", out.String())

	// A file given by its bytes alone is enough for the snippet.
	src := []byte("queue \"default\" {\n  batch_size =\n}\n")
	_, diags = Format(src, "fmt.hcl")
	require.True(t, diags.HasErrors())
	out.Reset()
	require.NoError(t, WriteDiagnostics(&out, diags, map[string]*hcl.File{"fmt.hcl": {Bytes: src}}))
	require.Contains(t, out.String(), "fmt.hcl:2:15: error: ")
	require.Contains(t, out.String(), "  2 |   batch_size =\n")
}
