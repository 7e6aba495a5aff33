package catalog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestObjectsForStaysUniqueWhenCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 60)
	a := ObjectsFor("pgseq", long+"_one")
	b := ObjectsFor("pgseq", long+"_two")
	for _, pair := range [][2]string{{a.Function, b.Function}, {a.Trigger, b.Trigger}, {a.Index, b.Index}} {
		require.LessOrEqual(t, len(pair[0]), 63)
		require.NotEqual(t, pair[0], pair[1])
	}
	short := ObjectsFor("pgseq", "task_index")
	require.Equal(t, CounterObjects{Function: "counter__task_index", Trigger: "pgseq__task_index", Index: "pgseq__task_index_key"}, short)
}
