// Package golden compares test output with golden files, and rewrites them
// when the test binary runs with -update:
//
//	go test ./planner -update
//
// It registers the -update flag, once for every test binary that imports
// it. It is a package of its own, apart from pgseqtest, so that the internal
// tests of the packages pgseqtest builds on (planner, for one) may use it.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files (and generated files tests compare) instead of comparing with them")

// Update reports whether the test binary runs with -update: tests that
// compare a generated file in their own way rewrite it then.
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the
// package's directory), byte for byte. With -update it writes got to path
// instead, creating its directory.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	rerun := fmt.Sprintf("go test -run '^%s$' -update", t.Name())
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; %s in the package's directory creates it", rerun)
	require.Equal(t, string(want), got, "golden file %s differs; %s in the package's directory rewrites it: review the change with git diff", path, rerun)
}
