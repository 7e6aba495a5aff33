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

// The compact view: one line per change, the attributes an update changes
// inline, a destructive change marked with its reasons.
func TestPlanCompact(t *testing.T) {
	t.Parallel()
	running, unfinished := 7, int64(3)
	p := &plan.Plan{
		Changes: []plan.Change{
			{
				Address: `queue "old"`, Kind: plan.KindQueue, Name: "old", Action: plan.Delete,
				Before:      &catalog.Queue{Name: "old"},
				Context:     &plan.Context{Unfinished: &unfinished},
				Destructive: true,
				Reasons:     []string{"3 unfinished tasks would be deleted with the queue"},
			},
			{
				Address: `task "render"`, Kind: plan.KindTask, Name: "render", Action: plan.Update,
				Before:  &catalog.TaskType{Name: "render", Queue: "default", Concurrency: 10},
				After:   &catalog.TaskType{Name: "render", Queue: "default", Concurrency: 4},
				Context: &plan.Context{Running: &running},
			},
			{
				Address: `task "thumb"`, Kind: plan.KindTask, Name: "thumb", Action: plan.Create,
				After: &catalog.TaskType{Name: "thumb", Queue: "default"},
			},
		},
		Summary: plan.Summary{Add: 1, Change: 1, Destroy: 1},
	}
	var out strings.Builder
	require.NoError(t, PlanCompact(&out, p))
	require.Equal(t, `pgseq will perform the following actions:

  - queue "old" (3 unfinished tasks)
      # DESTRUCTIVE: needs --allow-destroy
      # 3 unfinished tasks would be deleted with the queue
  ~ task "render": concurrency 10 -> 4 (7 running)
  + task "thumb"

Plan: 1 to add, 1 to change, 1 to destroy.
`, out.String())
}

// A plan of more than SummaryFirst changes says its summary, and its
// changes by kind, before them as well as after.
func TestLargePlanSaysItsSummaryFirst(t *testing.T) {
	t.Parallel()
	p := &plan.Plan{Summary: plan.Summary{Add: SummaryFirst + 1}}
	p.Changes = append(p.Changes, plan.Change{Address: `queue "q"`, Kind: plan.KindQueue, Name: "q", Action: plan.Create, After: &catalog.Queue{Name: "q"}})
	for i := range SummaryFirst {
		name := "t" + strings.Repeat("x", i)
		p.Changes = append(p.Changes, plan.Change{Address: `task "` + name + `"`, Kind: plan.KindTask, Name: name, Action: plan.Create,
			After: &catalog.TaskType{Name: name, Queue: "q"}})
	}
	for name, render := range map[string]func(*strings.Builder) error{
		"blocks":  func(b *strings.Builder) error { return Plan(b, p) },
		"compact": func(b *strings.Builder) error { return PlanCompact(b, p) },
	} {
		var out strings.Builder
		require.NoError(t, render(&out), name)
		require.True(t, strings.HasPrefix(out.String(), "Plan: 51 to add, 0 to change, 0 to destroy.\n"+
			"Changes by kind: 1 queue to add, 50 task types to add.\n\npgseq will perform the following actions:\n"), name+":\n"+out.String()[:200])
		require.True(t, strings.HasSuffix(out.String(), "\nPlan: 51 to add, 0 to change, 0 to destroy.\n"), name)
	}
	small := &plan.Plan{Changes: p.Changes[:SummaryFirst], Summary: plan.Summary{Add: SummaryFirst}}
	var out strings.Builder
	require.NoError(t, Plan(&out, small))
	require.True(t, strings.HasPrefix(out.String(), "pgseq will perform the following actions:\n"), "50 changes: no summary first")
}

// A partitioned type's change says its keys with work, those at the
// per-key limit in force and those over the new one, in both views.
func TestPlanShowsPartitionKeys(t *testing.T) {
	t.Parallel()
	running, keys, at, over := 10, 31, 12, 18
	p := &plan.Plan{
		Changes: []plan.Change{{
			Address: `task "render"`, Kind: plan.KindTask, Name: "render", Action: plan.Update,
			Before:     &catalog.TaskType{Name: "render", Queue: "default", Partition: &catalog.Partition{Concurrency: 4}},
			After:      &catalog.TaskType{Name: "render", Queue: "default", Partition: &catalog.Partition{Concurrency: 2}},
			Attributes: []string{"partition.concurrency"},
			Context:    &plan.Context{Running: &running, Keys: &keys, KeysAtLimit: &at, KeysOverLimit: &over},
		}},
		Summary: plan.Summary{Change: 1},
	}
	var blocks, compact strings.Builder
	require.NoError(t, Plan(&blocks, p))
	require.NoError(t, PlanCompact(&compact, p))
	require.Contains(t, blocks.String(), `# task "render" will be updated in place (10 running, 31 partition keys, 12 at the limit of 4, 18 over the new limit of 2)`)
	require.Contains(t, blocks.String(), "~ concurrency = 4 -> 2  # 18 keys over, draining")
	require.Contains(t, compact.String(), `~ task "render": partition.concurrency 4 -> 2 (10 running, 31 partition keys, 12 at the limit of 4, 18 over the new limit of 2)`)
}
