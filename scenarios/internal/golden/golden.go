// Package golden compares the output of the scenarios packages' tests with
// golden files under their testdata directories: go test -update rewrites
// the files instead, for review in the diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// Updating reports whether -update was given.
func Updating() bool { return *update }

// Check compares got with the golden file at path (-update rewrites it).
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update in its package")
	require.Equal(t, string(want), string(got), "golden file %s differs; run go test -update in its package and review the diff", path)
}
