package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --driver sql drains through the SQL API with its own defaults (8
// claimers, batch 100), and the report says so; an unknown driver is an
// error before anything runs.
func TestBenchDrainSQLDriver(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out := t.TempDir()
	r := c.run("bench", "drain", "--driver", "sql", "--tasks", "200", "--rounds", "1", "--variants", "baseline", "--warmup", "-1", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "8 SQL claimers, batch 100")
	md, err := os.ReadFile(filepath.Join(out, "drain.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "Reproduce: `pgseq bench drain --driver sql --tasks 200 --rounds 1 --variants baseline --workers 8 --batch-size 100`")

	r = c.run("bench", "drain", "--driver", "python", "--out", "")
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, `unknown drain driver "python"`)
}
