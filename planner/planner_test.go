package planner

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/render"
)

func intp(v int) *int { return &v }

// slots returns the slot rows of a type laid out for limit, with used[i]
// tasks holding group i+1.
func slots(taskType string, limit int, used ...int) []catalog.SlotRun {
	var out []catalog.SlotGroup
	for i, c := range catalog.SlotLayout(limit) {
		g := catalog.SlotGroup{TaskType: taskType, Group: i + 1, Capacity: c}
		if i < len(used) {
			g.Used = used[i]
		}
		out = append(out, g)
	}
	return catalog.Runs(out)
}

// groups returns gs as runs.
func groups(gs ...catalog.SlotGroup) []catalog.SlotRun { return catalog.Runs(gs) }

func sumInts(xs ...int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func TestPlan(t *testing.T) {
	t.Parallel()
	def := catalog.DefaultQueue("default")
	media := catalog.DefaultQueue("media")
	media.BatchSize = 10
	email := catalog.TaskType{Name: "email:send", Queue: "default", Concurrency: 500, MaxRetries: intp(5)}
	render10 := catalog.TaskType{Name: "render", Queue: "media", Concurrency: 10}
	render500 := render10
	render500.Concurrency = 500
	render4 := render10
	render4.Concurrency = 4
	thumb := catalog.TaskType{Name: "thumbnail", Queue: "media", Priority: 5}

	used50 := make([]int, 50)
	used50[0], used50[20], used50[49] = 3, 2, 1 // 6 running, spread over groups 1, 21 and 50

	tests := []struct {
		name        string
		desired     catalog.State
		actual      catalog.State
		wantSummary plan.Summary
	}{
		{
			name:        "create_from_empty",
			desired:     catalog.State{Queues: []catalog.Queue{def, media}, TaskTypes: []catalog.TaskType{email, render10, thumb}},
			wantSummary: plan.Summary{Add: 5},
		},
		{
			name:    "no_changes",
			desired: catalog.State{Queues: []catalog.Queue{def}, TaskTypes: []catalog.TaskType{email}},
			actual: catalog.State{Queues: []catalog.Queue{def}, TaskTypes: []catalog.TaskType{email},
				Slots: slots("email:send", 500, 10, 10, 3)},
		},
		{
			name:        "raise_limit_10_to_500",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render500}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render10}, Slots: slots("render", 10, 1, 1, 1, 0, 1), Live: catalog.Live{Running: map[string]int{"render": 4}}},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "lower_limit_500_to_4_while_running",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render500}, Slots: slots("render", 500, used50...), Live: catalog.Live{Running: map[string]int{"render": sumInts(used50...)}}},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:    "still_draining_is_not_a_change",
			desired: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
			actual: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4},
				Slots: append(slots("render", 4, 1, 1, 1, 1), groups(catalog.SlotGroup{TaskType: "render", Group: 21, Capacity: 0, Used: 2})...)},
		},
		{
			name:    "trim_drained_groups",
			desired: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
			actual: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4},
				Slots: append(slots("render", 4), groups(catalog.SlotGroup{TaskType: "render", Group: 21, Capacity: 0, Used: 0},
					catalog.SlotGroup{TaskType: "render", Group: 50, Capacity: 0, Used: 1})...)},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "remove_limit",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{{Name: "render", Queue: "media"}}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render10}, Slots: slots("render", 10, 1, 1), Live: catalog.Live{Running: map[string]int{"render": 2}}},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "remove_task_type_while_running",
			desired:     catalog.State{Queues: []catalog.Queue{media}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render10, thumb}, Slots: slots("render", 10, 1), Live: catalog.Live{Running: map[string]int{"render": 1, "thumbnail": 3}}},
			wantSummary: plan.Summary{Destroy: 2},
		},
		{
			name:        "delete_queue_with_unfinished_tasks",
			desired:     catalog.State{Queues: []catalog.Queue{def}},
			actual:      catalog.State{Queues: []catalog.Queue{def, media}, Live: catalog.Live{Unfinished: map[string]int64{"media": 1204}}},
			wantSummary: plan.Summary{Destroy: 1},
		},
		{
			name: "update_queue_settings",
			desired: func() catalog.State {
				q := def
				q.BatchSize = 250
				q.Backoff.Max = catalog.Duration(3600 * 1e9)
				q.Retention.Completed = catalog.Duration(24 * 3600 * 1e9)
				return catalog.State{Queues: []catalog.Queue{q}}
			}(),
			actual:      catalog.State{Queues: []catalog.Queue{def}},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "repair_tampered_slot_capacity",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}, Slots: groups([]catalog.SlotGroup{{TaskType: "render", Group: 1, Capacity: 1}, {TaskType: "render", Group: 2, Capacity: 7}, {TaskType: "render", Group: 4, Capacity: 1}}...)},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name: "move_task_to_new_queue",
			desired: catalog.State{Queues: []catalog.Queue{def, media},
				TaskTypes: []catalog.TaskType{{Name: "thumbnail", Queue: "media", Priority: 5}}},
			actual:      catalog.State{Queues: []catalog.Queue{def}, TaskTypes: []catalog.TaskType{{Name: "thumbnail", Queue: "default"}}},
			wantSummary: plan.Summary{Add: 1, Change: 1},
		},
	}
	taskIndex := catalog.Counter{Name: "task_index", Table: "app.tasks", Column: "index", Scope: []string{"project_id"},
		PrefixFrom: &catalog.PrefixSource{Table: "app.projects", Column: "key"}, Start: 1,
		LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable}
	invoice := catalog.Counter{Name: "invoice_number", Prefix: "INV", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout,
		IdempotencyWindow: catalog.Duration(15 * 60 * 1e9)}
	invoiceLow := invoice
	invoiceLow.Start = 1
	issued := catalog.Live{Counters: map[string]catalog.CounterLive{
		"task_index":     {Scopes: 1204, MaxValue: 88310, TriggerOK: true, IndexOK: true},
		"invoice_number": {Scopes: 1, MaxValue: 1042, TriggerOK: true, IndexOK: true},
	}}
	drifted := catalog.Live{Counters: map[string]catalog.CounterLive{
		"task_index": {Scopes: 1204, MaxValue: 88310, TriggerOK: false, IndexOK: true},
	}}
	tests = append(tests, []struct {
		name        string
		desired     catalog.State
		actual      catalog.State
		wantSummary plan.Summary
	}{
		{
			name:        "counters_create",
			desired:     catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex, invoice}},
			actual:      catalog.State{Queues: []catalog.Queue{def}},
			wantSummary: plan.Summary{Add: 2},
		},
		{
			name:    "counters_unchanged_with_values_issued",
			desired: catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex, invoice}},
			actual:  catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{invoice, taskIndex}, Live: issued},
		},
		{
			name:        "counter_trigger_disabled_is_repaired",
			desired:     catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex}},
			actual:      catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex}, Live: drifted},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "counter_start_lowered_below_issued",
			desired:     catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{invoiceLow}},
			actual:      catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{invoice}, Live: issued},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "counter_delete",
			desired:     catalog.State{Queues: []catalog.Queue{def}},
			actual:      catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex}, Live: issued},
			wantSummary: plan.Summary{Destroy: 1},
		},
	}...)
	// Per-key limits: render runs at most 4 (then 2, 6) per tenant.
	perKey := func(t catalog.TaskType, n int) catalog.TaskType {
		t.Partition = &catalog.Partition{By: "tenant_id", Concurrency: n}
		return t
	}
	keyed4, keyed2, keyed6 := perKey(render10, 4), perKey(render10, 2), perKey(render10, 6)
	// 31 keys with work: 1 with only waiting tasks, 12 at the limit of 4.
	keys := map[string]catalog.KeyUses{"render": {{Used: 0, Keys: 1}, {Used: 1, Keys: 5}, {Used: 2, Keys: 7}, {Used: 3, Keys: 6}, {Used: 4, Keys: 12}}}
	keyedLive := catalog.Live{Running: map[string]int{"render": 10}, Keys: keys}
	tests = append(tests, []struct {
		name        string
		desired     catalog.State
		actual      catalog.State
		wantSummary plan.Summary
	}{
		{
			name:        "lower_per_key_limit_4_to_2_while_keys_over",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed2}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), Live: keyedLive},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "raise_per_key_limit_4_to_6",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed6}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), Live: keyedLive},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "add_partition_block",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render10}, Slots: slots("render", 10, 1, 1), Live: catalog.Live{Running: map[string]int{"render": 2}}},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:        "remove_partition_block_while_keys_have_work",
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render10}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), Live: keyedLive},
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:    "per_key_still_draining_is_not_a_change",
			desired: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed2}},
			actual: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed2}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
				Live: keyedLive},
		},
		{
			name:    "per_key_unchanged_with_keys_at_the_limit",
			desired: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}},
			actual: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
				Live: keyedLive},
		},
		{
			name:        "remove_partitioned_task_type",
			desired:     catalog.State{Queues: []catalog.Queue{media}},
			actual:      catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{keyed4}, Slots: slots("render", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), Live: keyedLive},
			wantSummary: plan.Summary{Destroy: 1},
		},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plan(tt.desired, tt.actual, Options{Schema: "pgseq"})
			require.Equal(t, tt.wantSummary, p.Summary)
			require.Equal(t, p.Summary == (plan.Summary{}), p.Empty())

			// Deterministic: the same inputs give byte-identical plans.
			again := Plan(tt.desired, tt.actual, Options{Schema: "pgseq"})
			require.Equal(t, p.Hash(), again.Hash())

			goldenPlan(t, tt.name, p)
		})
	}
}

// goldenPlan compares p's human view and JSON document with the golden
// files name.txt and name.json, and requires the document to read back to
// the same plan, which it returns.
func goldenPlan(t *testing.T, name string, p *plan.Plan) *plan.Plan {
	t.Helper()
	var human, js bytes.Buffer
	require.NoError(t, render.Plan(&human, p))
	require.NoError(t, p.Write(&js))
	golden.Check(t, filepath.Join("testdata", "golden", name+".txt"), human.String())
	golden.Check(t, filepath.Join("testdata", "golden", name+".json"), js.String())
	back, err := plan.Read(bytes.NewReader(js.Bytes()))
	require.NoError(t, err)
	require.Equal(t, p.Hash(), back.Hash())
	return back
}

// Converged: a plan made against the state its own application would
// produce is empty.
func TestPlanConvergesAfterSimulatedApply(t *testing.T) {
	t.Parallel()
	desired := catalog.State{
		Queues:    []catalog.Queue{catalog.DefaultQueue("default")},
		TaskTypes: []catalog.TaskType{{Name: "a", Queue: "default", Concurrency: 101}, {Name: "b", Queue: "default"}},
	}
	actual := catalog.State{}
	for _, tt := range desired.TaskTypes {
		actual.TaskTypes = append(actual.TaskTypes, tt)
		for i, c := range catalog.SlotLayout(tt.Concurrency) {
			actual.Slots = append(actual.Slots, catalog.SlotRun{TaskType: tt.Name, First: i + 1, Last: i + 1, Capacity: c})
		}
	}
	actual.Queues = desired.Queues
	require.True(t, Plan(desired, actual, Options{Schema: "pgseq"}).Empty())
}

func TestPlanLoweringSetsDrainAndDelete(t *testing.T) {
	t.Parallel()
	q := catalog.DefaultQueue("q")
	used := make([]int, 50)
	used[0], used[30] = 5, 2
	actual := catalog.State{Queues: []catalog.Queue{q},
		TaskTypes: []catalog.TaskType{{Name: "r", Queue: "q", Concurrency: 500}},
		Slots:     slots("r", 500, used...)}
	desired := catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{{Name: "r", Queue: "q", Concurrency: 10}}}
	p := Plan(desired, actual, Options{Schema: "pgseq"})
	require.Len(t, p.Changes, 1)
	sc := p.Changes[0].Slots
	require.NotNil(t, sc)
	require.Len(t, sc.Set, 10)
	for _, g := range sc.Set {
		require.Equal(t, 1, g.Capacity)
	}
	require.Len(t, sc.Remove, 40)
	require.Equal(t, []int{31}, sc.Draining)
	require.Equal(t, 7, sc.Used)
}
