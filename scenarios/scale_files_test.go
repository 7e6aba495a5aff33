package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/spec"
)

// TestWriteScaleConfig: the scale workload's files split every 10,000
// task blocks, each under spec.MaxFileSize, and load as the configuration
// they declare, the changed types with their new limit; writing again
// overwrites them.
func TestWriteScaleConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, size, err := writeScaleConfig(dir, 20_001, catalog.MaxConcurrency, 0, 0)
	require.NoError(t, err)
	require.Equal(t, 4, files, "queue.hcl and three of task blocks")
	names, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	require.NoError(t, err)
	var total int64
	for _, n := range names {
		info, err := os.Stat(n)
		require.NoError(t, err)
		require.LessOrEqual(t, info.Size(), int64(spec.MaxFileSize), n)
		total += info.Size()
	}
	require.Equal(t, total, size)
	require.Equal(t, []string{"queue.hcl", "types-000001.hcl", "types-010001.hcl", "types-020001.hcl"}, baseNames(names))

	_, _, err = writeScaleConfig(dir, 20_001, 1000, 3, 500)
	require.NoError(t, err)
	cfg, err := loadScaleConfig(dir)
	require.NoError(t, err)
	state := cfg.State()
	require.Equal(t, []catalog.Queue{catalog.DefaultQueue(ScaleQueue)}, state.Queues)
	require.Len(t, state.TaskTypes, 20_001)
	byName := map[string]catalog.TaskType{}
	for _, tt := range state.TaskTypes {
		byName[tt.Name] = tt
	}
	for i, want := range map[int]int{1: 500, 3: 500, 4: 1000, 10_000: 1000, 10_001: 1000, 20_001: 1000} {
		tt, ok := byName[fmt.Sprintf("t%06d", i)]
		require.True(t, ok, i)
		require.Equal(t, ScaleQueue, tt.Queue, i)
		require.Equal(t, want, tt.Concurrency, i)
	}
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
