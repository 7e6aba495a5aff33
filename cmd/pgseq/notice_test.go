package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLocalNoticeNamesTheLocalDir: the notice's stop command carries
// --local-dir when one was given, quoted for the shell when needed.
func TestLocalNoticeNamesTheLocalDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, want string }{
		{".pgseq", "(pgseq dev stop stops it)"},
		{"/tmp/pgseq-benchdb", "(pgseq --local-dir /tmp/pgseq-benchdb dev stop stops it)"},
		{"my db", "(pgseq --local-dir 'my db' dev stop stops it)"},
		{"it's", `(pgseq --local-dir 'it'\''s' dev stop stops it)`},
	} {
		require.Contains(t, localNotice(tc.dir), tc.want, tc.dir)
	}
}
