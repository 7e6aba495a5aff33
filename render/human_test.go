package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// TestPlanSingulars checks that counts of one read in the singular.
func TestPlanSingulars(t *testing.T) {
	t.Parallel()
	one := int64(1)
	retries := 2
	p := &plan.Plan{Changes: []plan.Change{
		{
			Address: `queue "old"`, Kind: plan.KindQueue, Name: "old", Action: plan.Delete,
			Before:  &catalog.Queue{Name: "old"},
			Context: &plan.Context{Unfinished: &one},
		},
		{
			Address: `task "render"`, Kind: plan.KindTask, Name: "render", Action: plan.Update,
			Before: &catalog.TaskType{Name: "render", Queue: "default"},
			After:  &catalog.TaskType{Name: "render", Queue: "media", Concurrency: 4, MaxRetries: &retries},
		},
	}}
	var out strings.Builder
	require.NoError(t, Plan(&out, p))
	require.Contains(t, out.String(), `# queue "old" will be destroyed (1 unfinished task)`)
	require.Contains(t, out.String(), "# (1 unchanged attribute hidden)")
}
