package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

func TestKeysFollowTheirSpec(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     scenariofile.KeySpec
		tasks    int
		hotShare float64 // the share key 0 must get, within 1 point
		distinct int     // keys that must get at least one task
	}{
		{"none", scenariofile.KeySpec{}, 10, 0, 0},
		{"in turn", scenariofile.KeySpec{Count: 4}, 10, 0.3, 4},
		{"one key", scenariofile.KeySpec{Count: 1}, 100, 1, 1},
		{"zipf hottest 30%", scenariofile.KeySpec{Count: 10_000, HotShare: 0.3}, 200_000, 0.3, 5_000},
		{"uniform share", scenariofile.KeySpec{Count: 10, HotShare: 0.1}, 100_000, 0.1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := assignKeys(tc.spec, tc.tasks)
			if tc.spec.Count == 0 {
				require.Nil(t, keys)
				return
			}
			require.Len(t, keys, tc.tasks)
			counts := map[int32]int{}
			for _, k := range keys {
				require.True(t, k >= 0 && int(k) < tc.spec.Count, "key %d out of range", k)
				counts[k]++
			}
			require.InDelta(t, tc.hotShare, float64(counts[0])/float64(tc.tasks), 0.01)
			require.GreaterOrEqual(t, len(counts), tc.distinct)
			require.Equal(t, keys, assignKeys(tc.spec, tc.tasks), "the same spec seeds the same keys")
		})
	}
	require.Equal(t, "k0000001", keyName(0))
}
