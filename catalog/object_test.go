package catalog

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEqualComparesKindKeyAndAttributes(t *testing.T) {
	two, three := 2, 3
	q := DefaultQueue("default")
	slower := q
	slower.Backoff.Factor = 3
	tests := []struct {
		name string
		a, b Object
		want bool
	}{
		{"same queue", &q, ptr(DefaultQueue("default")), true},
		{"other setting", &q, &slower, false},
		{"other name", &q, ptr(DefaultQueue("other")), false},
		{"other kind, same name", &q, &TaskType{Name: "default", Queue: "default"}, false},
		{"retries nil vs set", &TaskType{Name: "t", Queue: "q"}, &TaskType{Name: "t", Queue: "q", MaxRetries: &two}, false},
		{"retries by value", &TaskType{Name: "t", Queue: "q", MaxRetries: &two}, &TaskType{Name: "t", Queue: "q", MaxRetries: ptr(2)}, true},
		{"retries differ", &TaskType{Name: "t", Queue: "q", MaxRetries: &two}, &TaskType{Name: "t", Queue: "q", MaxRetries: &three}, false},
		{"counter scope nil vs empty", &Counter{Name: "c", Start: 1}, &Counter{Name: "c", Start: 1, Scope: []string{}}, true},
		{"counter scope order", &Counter{Name: "c", Scope: []string{"a", "b"}}, &Counter{Name: "c", Scope: []string{"b", "a"}}, false},
		{"counter prefix_from", &Counter{Name: "c"}, &Counter{Name: "c", PrefixFrom: &PrefixSource{Table: "p", Column: "k"}}, false},
		{"grant", &Grant{Level: LevelWork, Role: "w"}, &Grant{Level: LevelWork, Role: "w"}, true},
		{"grant other role", &Grant{Level: LevelWork, Role: "w"}, &Grant{Level: LevelWork, Role: "W"}, false},
		{"nil and nil", nil, nil, true},
		{"nil and object", nil, &q, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Equal(tt.a, tt.b))
			require.Equal(t, tt.want, Equal(tt.b, tt.a), "symmetric")
		})
	}
}

func TestKindsRoundTripThroughTheRegistry(t *testing.T) {
	s := State{
		Queues:    []Queue{DefaultQueue("b"), DefaultQueue("a")},
		TaskTypes: []TaskType{{Name: "t", Queue: "a", Concurrency: 5}},
		Counters:  []Counter{{Name: "c", Start: 1, LockTimeout: DefaultCounterLockTimeout}},
		Access:    []Grant{{Level: LevelRead, Role: "r"}},
	}
	var kinds []string
	var back State
	for _, o := range s.Objects() {
		kinds = append(kinds, o.Kind())
		require.True(t, ValidKey(o.Kind(), o.Key()), "%s %s", o.Kind(), o.Key())

		// Every kind decodes from its JSON into the registry's object.
		b, err := json.Marshal(o)
		require.NoError(t, err)
		fresh, ok := NewObject(o.Kind())
		require.True(t, ok)
		require.NoError(t, json.Unmarshal(b, fresh))
		require.True(t, Equal(o, fresh), "%s %s", o.Kind(), o.Key())
		back.Add(fresh)
	}
	require.Equal(t, []string{KindQueue, KindQueue, KindTask, KindCounter, KindAccess}, kinds, "plan order, sorted")
	want := s.Clone()
	want.Sort()
	require.Equal(t, want, back)

	for i, k := range Kinds() {
		require.Equal(t, i, KindRank(k))
	}
	require.Equal(t, len(Kinds()), KindRank("slot"))
	_, ok := NewObject("slot")
	require.False(t, ok)
	require.False(t, ValidKey("slot", "x"))
}

func ptr[T any](v T) *T { return &v }
