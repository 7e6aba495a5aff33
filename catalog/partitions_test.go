package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeyUses(t *testing.T) {
	t.Parallel()
	us := KeyUses{{Used: 0, Keys: 3}, {Used: 1, Keys: 5}, {Used: 2, Keys: 40}, {Used: 4, Keys: 2}}
	tests := []struct {
		n              int
		atLeast, above int
	}{
		{n: 0, atLeast: 50, above: 47},
		{n: 1, atLeast: 47, above: 42},
		{n: 2, atLeast: 42, above: 2},
		{n: 3, atLeast: 2, above: 2},
		{n: 4, atLeast: 2, above: 0},
		{n: 5, atLeast: 0, above: 0},
	}
	for _, tt := range tests {
		require.Equal(t, tt.atLeast, us.AtLeast(tt.n), "at least %d", tt.n)
		require.Equal(t, tt.above, us.Above(tt.n), "above %d", tt.n)
	}
	require.Equal(t, 50, us.Total())
	require.Zero(t, KeyUses(nil).Total())
}
