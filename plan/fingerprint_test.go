package plan_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// marshalFingerprint is Fingerprint as versions before 17 computed it: the
// whole document built by json.Marshal, then hashed. Saved plans carry it.
func marshalFingerprint(s catalog.State) string {
	type slot struct {
		T string `json:"t"`
		G int    `json:"g"`
		C int    `json:"c"`
	}
	c := s.Clone()
	c.Sort()
	groups := catalog.Groups(c.Slots)
	slots := make([]slot, len(groups))
	for i, g := range groups {
		slots[i] = slot{g.TaskType, g.Group, g.Capacity}
	}
	b, _ := json.Marshal(struct {
		Q []catalog.Queue    `json:"q"`
		T []catalog.TaskType `json:"t"`
		S []slot             `json:"s"`
		C []catalog.Counter  `json:"c,omitempty"`
		A []catalog.Grant    `json:"a,omitempty"`
	}{c.Queues, c.TaskTypes, slots, c.Counters, c.Access})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The streamed fingerprint is the one json.Marshal gave, byte for byte, so
// a plan saved by an earlier pgseq is not refused as stale after an
// upgrade.
func TestFingerprintIsTheMarshalledOne(t *testing.T) {
	t.Parallel()
	full := catalog.State{
		Queues: []catalog.Queue{catalog.DefaultQueue("z"), catalog.DefaultQueue("a<b>&c")},
		TaskTypes: []catalog.TaskType{
			{Name: "émoji ✓", Queue: "z", Concurrency: 3},
			{Name: "a\"quote\\", Queue: "a<b>&c"},
			{Name: "render", Queue: "z", Concurrency: 101},
		},
		Slots: []catalog.SlotRun{
			{TaskType: "render", First: 2, Last: 4, Capacity: 3, Used: 1},
			{TaskType: "render", First: 1, Last: 1, Capacity: 3},
			{TaskType: "émoji ✓", First: 1, Last: 1, Capacity: 1},
			{TaskType: "a\"quote\\", First: 7, Last: 8, Capacity: 0, Used: 2},
		},
		Counters: []catalog.Counter{{Name: "invoice", Start: 1}},
		Access:   []catalog.Grant{{Level: "work", Role: "App<Worker>"}},
	}
	for name, s := range map[string]catalog.State{
		"empty":          {},
		"empty lists":    {Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}, Slots: []catalog.SlotRun{}, Counters: []catalog.Counter{}, Access: []catalog.Grant{}},
		"full, unsorted": full,
		"full, sorted":   func() catalog.State { c := full.Clone(); c.Sort(); return c }(),
		"no slots":       {Queues: full.Queues, TaskTypes: full.TaskTypes},
	} {
		require.Equal(t, marshalFingerprint(s), plan.Fingerprint(s), name)
	}
}

// The streamed hash is the one of the whole document json.Marshal made, on
// every golden plan of the planner's tests, with no changes at all, and
// for a plan JSON cannot hold.
func TestHashIsTheMarshalledOne(t *testing.T) {
	t.Parallel()
	marshalHash := func(p *plan.Plan) string {
		c := *p
		c.Checksum = ""
		b, err := json.Marshal(&c)
		if err != nil {
			b = []byte(err.Error())
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	files, err := filepath.Glob("../planner/testdata/golden/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var p plan.Plan
		require.NoError(t, json.Unmarshal(b, &p), f)
		require.Equal(t, marshalHash(&p), p.Hash(), f)
		p.Changes = nil
		require.Equal(t, marshalHash(&p), p.Hash(), f+", changes nil")
		p.Changes = []plan.Change{}
		require.Equal(t, marshalHash(&p), p.Hash(), f+", no changes")
	}
	nan := &plan.Plan{Changes: []plan.Change{{Kind: plan.KindQueue, After: &catalog.Queue{Name: "q", Backoff: catalog.Backoff{Factor: math.NaN()}}}}}
	require.Equal(t, marshalHash(nan), nan.Hash())
}
