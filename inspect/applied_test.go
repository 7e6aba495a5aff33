package inspect

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// The recorded state reads back as the managed state it was made from:
// settings, slot capacities (not usage), counters and their objects'
// health; slot groups are stored as runs.
func TestAppliedStateRoundTrip(t *testing.T) {
	t.Parallel()
	retries := 4
	s := catalog.State{
		Queues:    []catalog.Queue{catalog.DefaultQueue("q")},
		TaskTypes: []catalog.TaskType{{Name: "b", Queue: "q", Concurrency: 101, MaxRetries: &retries}, {Name: "a", Queue: "q", Priority: -3}},
		Counters: []catalog.Counter{
			{Name: "n", Table: "app.t", Column: "n", Scope: []string{"p"}, Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable},
			{Name: "inv", Prefix: "INV", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout, IdempotencyWindow: catalog.Duration(600e9)},
		},
		Live: catalog.Live{
			Running:  map[string]int{"b": 7},
			Counters: map[string]catalog.CounterLive{"n": {Scopes: 5, MaxValue: 99, TriggerOK: false, IndexOK: true}, "inv": {TriggerOK: true, IndexOK: true}},
		},
	}
	var groups []catalog.SlotGroup
	for i, c := range catalog.SlotLayout(101) {
		groups = append(groups, catalog.SlotGroup{TaskType: "b", Group: i + 1, Capacity: c, Used: i % 3})
	}
	groups = append(groups, catalog.SlotGroup{TaskType: "b", Group: 40, Capacity: 0, Used: 2}, catalog.SlotGroup{TaskType: "b", Group: 41, Capacity: 0, Used: 1})
	s.Slots = catalog.Runs(groups)

	b, err := EncodeApplied(s)
	require.NoError(t, err)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &doc))
	require.JSONEq(t, `{"b": [[1, 33, 3], [34, 34, 2], [40, 41, 0]]}`, string(doc["slots"]))
	require.JSONEq(t, `{"n": {"trigger_ok": false, "index_ok": true}}`, string(doc["counter_health"]))

	back, err := decodeApplied(b)
	require.NoError(t, err)
	// The groups as they were, without their use (not recorded), as
	// maximal runs of equal capacity.
	for i := range groups {
		groups[i].Used = 0
	}
	require.Equal(t, catalog.Runs(groups), back.Slots)
	want := s.Clone()
	want.Sort()
	want.Slots = back.Slots
	want.Live = catalog.Live{Counters: map[string]catalog.CounterLive{"n": {IndexOK: true}, "inv": {TriggerOK: true, IndexOK: true}}}
	require.Equal(t, want, back)

	empty, err := EncodeApplied(catalog.State{})
	require.NoError(t, err)
	require.JSONEq(t, `{"format": 1, "queues": [], "task_types": [], "slots": {}, "counters": [], "counter_health": {}}`, string(empty))

	for _, bad := range []string{`{"format": 2}`, `[]`, `{"format": 1, "slots": {"b": [[3, 1, 1]]}}`, `{"format": 1, "slots": {"b": [[0, 1, 1]]}}`,
		`{"format": 1, "slots": {"b": [[1, 1, 1], [1, 2, 1]]}}`, `{"format": 1, "slots": {"b": [[1, 999999, 1]], "c": [[1, 999999, 1]], "d": [[1, 999999, 1]], "e": [[1, 999999, 1]], "f": [[1, 999999, 1]], "g": [[1, 999999, 1]], "h": [[1, 999999, 1]], "i": [[1, 999999, 1]], "j": [[1, 999999, 1]], "k": [[1, 999999, 1]], "l": [[1, 999999, 1]]}}`} {
		_, err := decodeApplied([]byte(bad))
		require.Error(t, err, bad)
	}
}

// BenchmarkAppliedState encodes and decodes the recorded state of 10,000
// task types with 50 slot groups each (500,000 slot rows).
func BenchmarkAppliedState(b *testing.B) {
	s := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}
	for i := 0; i < 10_000; i++ {
		name := fmt.Sprintf("type:%05d", i)
		s.TaskTypes = append(s.TaskTypes, catalog.TaskType{Name: name, Queue: "default", Concurrency: 1000})
		for g, c := range catalog.SlotLayout(1000) {
			s.Slots = append(s.Slots, catalog.SlotRun{TaskType: name, First: g + 1, Last: g + 1, Capacity: c})
		}
	}
	doc, err := EncodeApplied(s)
	require.NoError(b, err)
	b.ReportMetric(float64(len(doc)), "bytes")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeApplied(s); err != nil {
			b.Fatal(err)
		}
		back, err := decodeApplied(doc)
		if err != nil || len(back.Slots) != len(s.Slots) {
			b.Fatal(err)
		}
	}
}
