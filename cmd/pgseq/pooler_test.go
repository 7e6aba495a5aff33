package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// The commands work behind PgBouncer in transaction mode with a connection
// string as a user writes it, no query mode in it: they prepare nothing
// (dbconn.ConnectSourcePoolerSafe). Before, every process after the first
// failed with `prepared statement "stmtcache_…" already exists (42P05)`,
// the server connections being shared between processes.
func TestCommandsBehindPgBouncerInTransactionMode(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.url = pgtest.PgBouncer(t, "transaction", 2)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "main.hcl")
	write := func(limit string) {
		require.NoError(t, os.WriteFile(cfg, []byte(`queue "default" {}

task "render" {
  queue       = "default"
  concurrency = `+limit+`
}
`), 0o644))
	}
	write("3")
	for i, args := range [][]string{
		{"apply", "--auto-approve", cfg},
		{"plan", "--detailed-exitcode", cfg},
		{"status"},
		{"inspect"},
		{"plan", "--detailed-exitcode", cfg},
	} {
		r := c.run(args...)
		require.Equal(t, 0, r.code, "run %d, %v:\nstdout:\n%s\nstderr:\n%s", i, args, r.stdout, r.stderr)
	}
	write("5")
	r := c.run("apply", "--auto-approve", cfg)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Apply complete! 0 added, 1 changed, 0 destroyed.")
	r = c.run("plan", "--detailed-exitcode", cfg)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
}
