package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

func TestPlural(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "queue", "0 queues"},
		{1, "queue", "1 queue"},
		{2, "task type", "2 task types"},
		{1, "unfinished task", "1 unfinished task"},
		{-1, "round", "-1 rounds"},
	} {
		require.Equal(t, tc.want, Plural(tc.n, tc.noun))
	}
}

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
