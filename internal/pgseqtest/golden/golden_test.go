package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Under -update, Check writes the file (and its directory); without it, it
// compares with what it wrote.
func TestCheckWritesUnderUpdateThenCompares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "out.txt")
	saved := *update
	t.Cleanup(func() { *update = saved })

	*update = true
	require.True(t, Update())
	Check(t, path, "line 1\nline 2\n")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "line 1\nline 2\n", string(b))

	*update = false
	require.False(t, Update())
	Check(t, path, "line 1\nline 2\n")
}
