package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
)

// validate --json prints the diagnostics as the golden files under
// testdata/validate-json have them — errors with their ranges, warnings,
// diagnostics with no file — and exits as validate does.
func TestValidateJSONGolden(t *testing.T) {
	t.Parallel()
	url := closedPortURL(t)
	cases := []struct {
		name  string
		paths []string
		code  int
	}{
		{"concurrency-zero", []string{"../../spec/testdata/error-files/concurrency-zero.hcl"}, exitError},
		{"many-errors", []string{"../../spec/testdata/many-errors.hcl"}, exitError},
		{"tabs", []string{"../../spec/testdata/tabs.hcl"}, exitError},
		{"dup-across-files", []string{"../../spec/testdata/dup-across-files"}, exitError},
		{"missing-path", []string{"../../spec/testdata/no-such-file.hcl"}, exitError},
		{"declares-nothing", []string{"testdata/validate-json/declares-nothing.hcl"}, exitOK},
		{"valid", []string{"../../spec/testdata/valid/full.hcl"}, exitOK},
	}
	for _, tc := range cases {
		r := runOffline(append([]string{"--database-url", url, "validate", "--json"}, tc.paths...)...)
		require.Equal(t, tc.code, r.code, "%s: %s", tc.name, r.stderr)
		require.Empty(t, r.stderr, tc.name)
		var doc validation
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), tc.name)
		require.Equal(t, tc.code == exitOK, doc.Valid, tc.name)
		golden.Check(t, filepath.Join("testdata", "validate-json", tc.name+".json"), r.stdout)
	}
}

// For every error file, validate --json reports what validate prints (the
// golden diagnostics of package spec): the same diagnostics in the same
// order, each with its file, line, column, summary and detail, and a range
// that ends at or after its start.
func TestValidateJSONMatchesTheDiagnostics(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../spec/testdata/error-files/*.hcl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 20)
	for _, file := range files {
		r := runOffline("validate", "--json", file)
		require.Equal(t, exitError, r.code, file)
		var doc validation
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), file)
		require.False(t, doc.Valid)
		require.Equal(t, len(doc.Diagnostics), doc.ErrorCount+doc.WarningCount)
		require.NotZero(t, doc.ErrorCount, file)

		golden, err := os.ReadFile(filepath.Join("../../spec/testdata/diagnostics", "error-files-"+strings.TrimSuffix(filepath.Base(file), ".hcl")+".txt"))
		require.NoError(t, err)
		// The human form names the file as spec's tests give it.
		human := strings.ReplaceAll(string(golden), "testdata/error-files/", "../../spec/testdata/error-files/")
		var heads []string
		for _, l := range strings.Split(human, "\n") {
			if strings.HasPrefix(l, file+":") {
				heads = append(heads, l)
			}
		}
		require.Len(t, doc.Diagnostics, len(heads), file)
		for i, d := range doc.Diagnostics {
			require.NotNil(t, d.Filename, file)
			require.Equal(t, file, *d.Filename)
			require.Equal(t, fmt.Sprintf("%s:%d:%d: %s: %s", *d.Filename, d.Start.Line, d.Start.Column, d.Severity, d.Summary), heads[i])
			require.NotEmpty(t, d.Detail)
			require.Contains(t, human, strings.TrimRight(d.Detail, "\n"))
			require.GreaterOrEqual(t, d.End.Byte, d.Start.Byte)
			require.GreaterOrEqual(t, d.End.Line, d.Start.Line)
		}
	}
}
