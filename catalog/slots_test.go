package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSlotLayoutEveryLimit(t *testing.T) {
	t.Parallel()
	for limit := 1; limit <= 1000; limit++ {
		caps := SlotLayout(limit)
		require.NotEmpty(t, caps, "limit %d", limit)
		require.LessOrEqual(t, len(caps), MaxSlotGroups, "limit %d", limit)
		sum := 0
		for i, c := range caps {
			require.GreaterOrEqual(t, c, 1, "limit %d group %d", limit, i+1)
			require.LessOrEqual(t, c, caps[0], "limit %d: only the last group may be smaller", limit)
			if i < len(caps)-1 {
				require.Equal(t, caps[0], c, "limit %d group %d", limit, i+1)
			}
			sum += c
		}
		require.Equal(t, limit, sum, "limit %d: capacities must sum to the limit", limit)
	}
}

func TestSlotLayoutLargeLimits(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1001, 4999, 5000, 5001, 99_999, 1_000_000} {
		caps := SlotLayout(limit)
		require.LessOrEqual(t, len(caps), MaxSlotGroups)
		sum := 0
		for _, c := range caps {
			sum += c
		}
		require.Equal(t, limit, sum, "limit %d", limit)
	}
}

func TestSlotLayoutExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		limit        int
		groups, per  int
		lastCapacity int
	}{
		{limit: 4, groups: 4, per: 1, lastCapacity: 1},
		{limit: 100, groups: 50, per: 2, lastCapacity: 2},
		{limit: 500, groups: 50, per: 10, lastCapacity: 10},
		{limit: 1000, groups: 50, per: 20, lastCapacity: 20},
		{limit: 101, groups: 34, per: 3, lastCapacity: 2},
		{limit: 1, groups: 1, per: 1, lastCapacity: 1},
		{limit: 51, groups: 26, per: 2, lastCapacity: 1},
	}
	for _, tt := range tests {
		caps := SlotLayout(tt.limit)
		require.Len(t, caps, tt.groups, "limit %d", tt.limit)
		require.Equal(t, tt.per, caps[0], "limit %d", tt.limit)
		require.Equal(t, tt.lastCapacity, caps[len(caps)-1], "limit %d", tt.limit)
	}
	require.Nil(t, SlotLayout(0))
	require.Nil(t, SlotLayout(-3))
}
