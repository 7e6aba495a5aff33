package planner

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// TestPlanDrift: with the state the last apply recorded, the plan lists
// what changed outside pgseq (golden, human and JSON) apart from the
// changes, which are those made without it.
func TestPlanDrift(t *testing.T) {
	t.Parallel()
	def := catalog.DefaultQueue("default")
	def250 := def
	def250.BatchSize = 250
	def250.Backoff.Max = catalog.Duration(3600e9)
	media := catalog.DefaultQueue("media")
	manual := catalog.DefaultQueue("manual")
	manual.MaxRetries = 0
	render4 := catalog.TaskType{Name: "render", Queue: "media", Concurrency: 4}
	thumb := catalog.TaskType{Name: "thumbnail", Queue: "media", Priority: 5}
	taskIndex := catalog.Counter{Name: "task_index", Table: "app.tasks", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable}
	taskIndexMoved := taskIndex
	taskIndexMoved.LockTimeout = catalog.Duration(30e9)
	healthy := catalog.Live{Counters: map[string]catalog.CounterLive{"task_index": {TriggerOK: true, IndexOK: true}}}
	issued := catalog.Live{Counters: map[string]catalog.CounterLive{"task_index": {Scopes: 12, MaxValue: 310, TriggerOK: false, IndexOK: true}}}

	tests := []struct {
		name        string
		applied     catalog.State
		actual      catalog.State
		desired     catalog.State
		wantSummary plan.Summary
		wantDrift   []string
	}{
		{
			// Group 2's capacity raised by hand, group 3 deleted: the plan
			// names both, before -> after, and the change repairs them.
			name:    "drift_slot_groups_edited_by_hand",
			applied: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}, Slots: slots("render", 4)},
			actual: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4},
				Slots: groups([]catalog.SlotGroup{{TaskType: "render", Group: 1, Capacity: 1, Used: 1}, {TaskType: "render", Group: 2, Capacity: 9, Used: 3}, {TaskType: "render", Group: 4, Capacity: 1}}...),
				Live:  catalog.Live{Running: map[string]int{"render": 4}}},
			desired:     catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
			wantSummary: plan.Summary{Change: 1},
			wantDrift:   []string{`task "render"`},
		},
		{
			// Queue settings changed and a counter's trigger dropped by hand,
			// a counter setting changed too.
			name:        "drift_queue_settings_and_counter_trigger",
			applied:     catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex}, Live: healthy},
			actual:      catalog.State{Queues: []catalog.Queue{def250}, Counters: []catalog.Counter{taskIndexMoved}, Live: issued},
			desired:     catalog.State{Queues: []catalog.Queue{def}, Counters: []catalog.Counter{taskIndex}},
			wantSummary: plan.Summary{Change: 2},
			wantDrift:   []string{`queue "default"`, `counter "task_index"`},
		},
		{
			// A queue created by hand, another deleted with its task type.
			name:        "drift_objects_created_and_deleted",
			applied:     catalog.State{Queues: []catalog.Queue{def, media}, TaskTypes: []catalog.TaskType{thumb}},
			actual:      catalog.State{Queues: []catalog.Queue{def, manual}},
			desired:     catalog.State{Queues: []catalog.Queue{def, media}, TaskTypes: []catalog.TaskType{thumb}},
			wantSummary: plan.Summary{Add: 2, Destroy: 1},
			wantDrift:   []string{`queue "manual"`, `queue "media"`, `task "thumbnail"`},
		},
		{
			// The configuration declares what was changed by hand: drift,
			// and no change.
			name:      "drift_already_declared",
			applied:   catalog.State{Queues: []catalog.Queue{def}},
			actual:    catalog.State{Queues: []catalog.Queue{def250}},
			desired:   catalog.State{Queues: []catalog.Queue{def250}},
			wantDrift: []string{`queue "default"`},
		},
		{
			// Usage moving and a draining group deleted by the runtime once
			// empty are not drift.
			name: "no_drift_from_usage_or_drained_groups",
			applied: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4},
				Slots: append(slots("render", 4, 1, 1, 1, 1), groups(catalog.SlotGroup{TaskType: "render", Group: 21, Capacity: 0, Used: 2})...)},
			actual:  catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}, Slots: slots("render", 4, 0, 1, 0, 0)},
			desired: catalog.State{Queues: []catalog.Queue{media}, TaskTypes: []catalog.TaskType{render4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := Options{Schema: "pgseq", Applied: &tt.applied}
			p := Plan(tt.desired, tt.actual, opts)
			require.Equal(t, tt.wantSummary, p.Summary)
			var addrs []string
			for _, d := range p.Drift {
				addrs = append(addrs, d.Address)
			}
			require.Equal(t, tt.wantDrift, addrs)

			// Drift changes nothing in what the plan does: without the
			// applied state the changes are the same.
			without := Plan(tt.desired, tt.actual, Options{Schema: "pgseq"})
			require.Empty(t, without.Drift)
			require.Equal(t, without.Changes, p.Changes)
			require.Equal(t, without.Fingerprint, p.Fingerprint)
			require.Empty(t, plan.Differences(without, p))

			require.Equal(t, p.Hash(), Plan(tt.desired, tt.actual, opts).Hash(), "deterministic")

			back := goldenPlan(t, tt.name, p)
			require.Equal(t, p.Drift, back.Drift)
		})
	}
}

// The drift of the slot groups names each group with its capacity before
// and after, and never usage.
func TestDriftSlotGroups(t *testing.T) {
	t.Parallel()
	q := catalog.DefaultQueue("q")
	r := catalog.TaskType{Name: "r", Queue: "q", Concurrency: 4}
	applied := catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{r}, Slots: slots("r", 4)}
	actual := catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{r}, Slots: groups([]catalog.SlotGroup{
		{TaskType: "r", Group: 1, Capacity: 1, Used: 1},
		{TaskType: "r", Group: 2, Capacity: 0, Used: 1}, // drained by hand
		{TaskType: "r", Group: 4, Capacity: 1},          // group 3 deleted
		{TaskType: "r", Group: 7, Capacity: 5},          // added
	}...)}
	d := Drift(applied, actual)
	require.Len(t, d, 1)
	require.Equal(t, plan.Update, d[0].Action)
	require.Empty(t, d[0].Attributes)
	one, zero, five := 1, 0, 5
	require.Equal(t, []plan.SlotDrift{
		{Group: 2, Before: &one, After: &zero},
		{Group: 3, Before: &one},
		{Group: 7, After: &five},
	}, d[0].Slots)

	// The same state is no drift, whatever the usage.
	require.Empty(t, Drift(actual, actual))
	used := actual.Clone()
	for i := range used.Slots {
		used.Slots[i].Used += 3
	}
	require.Empty(t, Drift(actual, used))
}

// Attribute values are JSON values: numbers, strings, null, lists.
func TestDriftAttributeValues(t *testing.T) {
	t.Parallel()
	a := catalog.TaskType{Name: "t", Queue: "q"}
	b := a
	b.MaxRetries = intp(7)
	b.Concurrency = 3
	d := Drift(catalog.State{TaskTypes: []catalog.TaskType{a}}, catalog.State{TaskTypes: []catalog.TaskType{b}})
	require.Len(t, d, 1)
	got, err := json.Marshal(d[0].Attributes)
	require.NoError(t, err)
	require.JSONEq(t, `[{"attribute":"concurrency","before":null,"after":3},{"attribute":"max_retries","before":null,"after":7}]`, string(got))

	c := catalog.Counter{Name: "c", Table: "s.t", Column: "n", Scope: []string{"a", "b,\"c\""}, Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout}
	c2 := c
	c2.Scope = []string{"a"}
	c2.LockTimeout = catalog.Duration(90e9)
	d = Drift(catalog.State{Counters: []catalog.Counter{c}}, catalog.State{Counters: []catalog.Counter{c2}})
	require.Len(t, d, 1)
	got, err = json.Marshal(d[0].Attributes)
	require.NoError(t, err)
	require.JSONEq(t, `[{"attribute":"scope","before":["a","b,\"c\""],"after":["a"]},{"attribute":"lock_timeout","before":"5s","after":"1m30s"}]`, string(got))
}

// BenchmarkDrift compares two states of 10,000 task types with 50 slot
// groups each (500,000 slot rows), as a plan at that scale does.
func BenchmarkDrift(b *testing.B) {
	s := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}
	for i := 0; i < 10_000; i++ {
		name := "type:" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
		s.TaskTypes = append(s.TaskTypes, catalog.TaskType{Name: name, Queue: "default", Concurrency: 1000})
		s.Slots = append(s.Slots, slots(name, 1000)...)
	}
	s.Sort()
	b.ReportAllocs()
	for b.Loop() {
		if d := Drift(s, s); len(d) != 0 {
			b.Fatal(d)
		}
	}
}
