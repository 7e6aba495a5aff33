package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// TestLocalNoticeNamesTheLocalDir: the notice's stop command carries
// --local-dir when one is needed (given, or the directory was found from
// the configuration's directory), quoted for the shell when needed.
func TestLocalNoticeNamesTheLocalDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir      string
		withFlag bool
		want     string
	}{
		{"/work/app/.pgseq", false, "in /work/app/.pgseq (pgseq dev stop stops it)"},
		{"/tmp/pgseq-benchdb", true, "(pgseq --local-dir /tmp/pgseq-benchdb dev stop stops it)"},
		{"my db", true, "(pgseq --local-dir 'my db' dev stop stops it)"},
		{"it's", true, `(pgseq --local-dir 'it'\''s' dev stop stops it)`},
	} {
		require.Contains(t, localNotice(tc.dir, tc.withFlag), tc.want, tc.dir)
	}
}

// TestInterruptedApplySaysSo: an apply interrupted (Ctrl-C) while it waits
// for the apply lock says it was interrupted and that nothing was applied,
// not "context canceled", and changes nothing.
func TestInterruptedApplySaysSo(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := writeConfig(t, limit10)
	ctx := context.Background()
	tx, err := pgtest.Pool(t).Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck // test cleanup
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, applier.LockKey(c.Schema))
	require.NoError(t, err)

	runCtx, cancel := context.WithCancel(ctx)
	time.AfterFunc(500*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	code := run(runCtx, []string{"--database-url", c.url, "--schema", c.Schema, "apply", "--auto-approve", "--lock-timeout", "30s", file},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, exitError, code, errb.String())
	require.Contains(t, errb.String(), "interrupted; nothing was applied")
	require.NotContains(t, errb.String(), "context canceled")
	require.NoError(t, tx.Rollback(ctx))
	require.False(t, c.schemaExists(), "nothing applied")
}
