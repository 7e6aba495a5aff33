package localdb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Locate finds a project's .pgseq as git finds its repository, and says
// where to create one when there is none.
func TestLocate(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, dir := range []string{
		"project/.git", "project/.pgseq", "project/src/deep",
		"outer/.pgseq", "outer/repo/.git", "outer/repo/sub",
		"worktree/sub", "loose/.pgseq", "loose/a/b", "bare/x",
		"shadow/.git", "shadow/sub/.pgseq", "shadow/sub/inner",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(tmp, dir), 0o755))
	}
	// A worktree or submodule has a .git file; a .pgseq file is no database.
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "worktree", ".git"), []byte("gitdir: elsewhere\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "bare", ".pgseq"), nil, 0o644))

	at := func(p string) string { return filepath.Join(tmp, p) }
	for _, tc := range []struct {
		name   string
		starts []string
		want   Location
	}{
		{"the working directory's own", []string{"project"}, Location{at("project/.pgseq"), true}},
		{"from a subdirectory", []string{"project/src/deep"}, Location{at("project/.pgseq"), true}},
		{"not past the repository root", []string{"outer/repo/sub"}, Location{at("outer/repo/.pgseq"), false}},
		{"a .git file marks a root too", []string{"worktree/sub"}, Location{at("worktree/.pgseq"), false}},
		{"outside a repository, up to the root", []string{"loose/a/b"}, Location{at("loose/.pgseq"), true}},
		{"none outside a repository: here", []string{"bare/x"}, Location{at("bare/x/.pgseq"), false}},
		{"the nearest one wins", []string{"shadow/sub/inner"}, Location{at("shadow/sub/.pgseq"), true}},
		{"then the configuration's directory", []string{"bare/x", "project/src"}, Location{at("project/.pgseq"), true}},
		{"the working directory's first", []string{"loose/a", "project/src"}, Location{at("loose/.pgseq"), true}},
		{"none anywhere: the working directory's repository", []string{"outer/repo/sub", "bare/x"}, Location{at("outer/repo/.pgseq"), false}},
	} {
		starts := make([]string, len(tc.starts))
		for i, s := range tc.starts {
			starts[i] = at(s)
		}
		got, err := Locate(starts...)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	_, err := Locate()
	require.Error(t, err)
}
