package inspect

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// A type's groups become runs of consecutive groups alike, in group order
// even when the arrays come out of it, and a mismatch of the arrays is an
// error that names the type.
func TestAppendRuns(t *testing.T) {
	t.Parallel()
	out, err := appendRuns(nil, "a", []int32{1, 2, 3, 4, 9}, []int32{3, 3, 3, 2, 0}, []int32{0, 0, 1, 0, 2})
	require.NoError(t, err)
	out, err = appendRuns(out, "b", []int32{3, 1, 2}, []int32{5, 5, 5}, []int32{0, 0, 0})
	require.NoError(t, err)
	require.Equal(t, []catalog.SlotRun{
		{TaskType: "a", First: 1, Last: 2, Capacity: 3},
		{TaskType: "a", First: 3, Last: 3, Capacity: 3, Used: 1},
		{TaskType: "a", First: 4, Last: 4, Capacity: 2},
		{TaskType: "a", First: 9, Last: 9, Capacity: 0, Used: 2},
		{TaskType: "b", First: 1, Last: 3, Capacity: 5},
	}, out)

	_, err = appendRuns(nil, "c", []int32{1, 2}, []int32{1}, []int32{0, 0})
	require.EqualError(t, err, `slot groups of "c": 2 groups, 1 capacities, 2 uses`)
}
