package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fmt --diff prints what fmt would change as a unified diff, writes
// nothing, and exits 3 like --check; with --check as well it does the
// same. The diff applies (patch -p0) to give what fmt writes.
func TestFmtDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	uglySrc := "queue \"default\" {\nbatch_size=5\n    max_retries   =  2\n}\n\n# a comment\ntask \"render\" {\n  concurrency = 4\n}\n"
	ugly := filepath.Join(dir, "a.hcl")
	require.NoError(t, os.WriteFile(ugly, []byte(uglySrc), 0o644))
	tidy := filepath.Join(dir, "b.hcl")
	require.NoError(t, os.WriteFile(tidy, []byte("queue \"other\" {}\n"), 0o644))

	want := "--- " + ugly + "\t(original)\n+++ " + ugly + "\t(formatted)\n" + `@@ -1,6 +1,6 @@
 queue "default" {
-batch_size=5
-    max_retries   =  2
+  batch_size  = 5
+  max_retries = 2
 }
 
 # a comment
`
	for _, args := range [][]string{{"fmt", "--diff", dir}, {"fmt", "--check", "--diff", dir}, {"fmt", "--diff", tidy, ugly}} {
		r := runOffline(args...)
		require.Equal(t, exitFormat, r.code, "%v: %s", args, r.stderr)
		require.Equal(t, want, r.stdout, "%v", args)
		require.Equal(t, "1 file not in canonical format; run pgseq fmt to fix\n", r.stderr, "%v", args)
		b, err := os.ReadFile(ugly)
		require.NoError(t, err)
		require.Equal(t, uglySrc, string(b), "%v writes nothing", args)
	}

	r := runOffline("fmt", "--diff", tidy)
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Empty(t, r.stderr)

	// The diff is a patch: applied, it gives what fmt writes.
	r = runOffline("fmt", "--diff", ugly)
	require.Equal(t, exitFormat, r.code)
	if patch, err := exec.LookPath("patch"); err == nil {
		// patch refuses an absolute name from a diff: name the file.
		cmd := exec.Command(patch, "--quiet", "--force", ugly)
		cmd.Stdin = strings.NewReader(r.stdout)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))

		// With a relative name, patch -p0 finds the file from the
		// headers ("NAME<tab>(original)").
		rel := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(rel, "a.hcl"), []byte("queue \"x\" {\nbatch_size=5\n}\n"), 0o644))
		cmd = exec.Command(patch, "-p0", "--quiet", "--force")
		cmd.Dir = rel
		cmd.Stdin = strings.NewReader(unifiedDiff("a.hcl\t(original)", "a.hcl\t(formatted)",
			[]byte("queue \"x\" {\nbatch_size=5\n}\n"), []byte("queue \"x\" {\n  batch_size = 5\n}\n")))
		out, err = cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		b, err := os.ReadFile(filepath.Join(rel, "a.hcl"))
		require.NoError(t, err)
		require.Equal(t, "queue \"x\" {\n  batch_size = 5\n}\n", string(b))
	} else {
		require.NoError(t, os.WriteFile(ugly, []byte(applyUnifiedDiff(t, uglySrc, r.stdout)), 0o644))
	}
	patched, err := os.ReadFile(ugly)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ugly, []byte(uglySrc), 0o644))
	require.Equal(t, 0, runOffline("fmt", ugly).code)
	formatted, err := os.ReadFile(ugly)
	require.NoError(t, err)
	require.Equal(t, string(formatted), string(patched))

	// A file that does not parse: its diagnostics, exit 1; the diffs of
	// the others are printed all the same.
	require.NoError(t, os.WriteFile(ugly, []byte(uglySrc), 0o644))
	broken := filepath.Join(dir, "c.hcl")
	require.NoError(t, os.WriteFile(broken, []byte("queue \"x\" {\n  batch_size =\n}\n"), 0o644))
	r = runOffline("fmt", "--diff", dir)
	require.Equal(t, exitError, r.code)
	require.Equal(t, want, r.stdout)
	require.Contains(t, r.stderr, broken+":2:")
}
