package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/plan"
)

// A saved plan edited to carry terminal escape sequences in its reasons
// and warnings, and signed again (its checksum recomputed: anyone can), is
// shown with every control character escaped: show sends the terminal no
// escape sequence, bell or carriage return.
func TestShowEscapesControlCharactersOfACraftedPlan(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/show/drift.plan")
	require.NoError(t, err)
	p, err := plan.Read(f)
	require.NoError(t, f.Close())
	require.NoError(t, err)

	const evil = "\x1b]0;owned\x07\x1b[2J\x1b[1;1H\rall good\u009b31m\u202e"
	const shown = `\x1b]0;owned\x07\x1b[2J\x1b[1;1H\rall good\x9b31m\u202e`
	require.NotEmpty(t, p.Changes)
	p.Changes[0].Reasons = append(p.Changes[0].Reasons, "reason "+evil)
	p.Warnings = append(p.Warnings, "warning "+evil)
	p.Checksum = p.Hash()
	path := filepath.Join(t.TempDir(), "crafted.plan")
	var doc strings.Builder
	require.NoError(t, p.Write(&doc))
	require.NoError(t, os.WriteFile(path, []byte(doc.String()), 0o644))

	r := runOffline("--database-url", closedPortURL(t), "show", path)
	require.Equal(t, 0, r.code, r.stderr)
	for _, c := range r.stdout {
		require.False(t, c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 && c <= 0x9f || c == 0x202e,
			"show printed the raw control character %U:\n%q", c, r.stdout)
	}
	require.Contains(t, r.stdout, "reason "+shown)
	require.Contains(t, r.stdout, "warning "+shown)
}
