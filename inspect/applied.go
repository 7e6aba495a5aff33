package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
)

// AppliedStateVersion is the schema version from which every apply records
// the state it left in applies.state (migration 007).
const AppliedStateVersion = 7

// appliedFormat is the version of the applies.state document.
const appliedFormat = 1

// maxAppliedSlots bounds the slot groups a recorded state may expand to:
// far above any real state (10,000 types of 50 groups are 500,000), so that
// a row edited by hand cannot make a plan allocate without end.
const maxAppliedSlots = 10_000_000

// Applied is the managed state the newest apply left, as it recorded it.
type Applied struct {
	// ID is the applies row.
	ID int64
	// At is when the apply committed.
	At time.Time
	// State holds queues, task types, slot groups (capacities; usage is
	// not recorded and reads as 0), counters, and in Live.Counters whether
	// each counter's trigger and unique index were intact. No other live
	// value.
	State catalog.State
}

// appliedDoc is the applies.state document. Its fields say what drift is
// made of: the managed settings, the slot capacities, the health of each
// counter's objects; never usage or issued values.
type appliedDoc struct {
	Format    int                      `json:"format"`
	Queues    []catalog.Queue          `json:"queues"`
	TaskTypes []catalog.TaskType       `json:"task_types"`
	Slots     map[string][]slotRun     `json:"slots"`
	Counters  []catalog.Counter        `json:"counters"`
	Health    map[string]appliedHealth `json:"counter_health"`
}

// slotRun is a run of consecutive slot groups of one capacity: [first
// group, last group, capacity]. A layout is one or two runs (50 × 20, or
// 33 × 3 + 1 × 2), so 10,000 types with 50 groups each take a few hundred
// kilobytes, not a row per group.
type slotRun [3]int

type appliedHealth struct {
	TriggerOK bool `json:"trigger_ok"`
	IndexOK   bool `json:"index_ok"`
}

// EncodeApplied returns the applies.state document of s, the managed state
// an apply left (ReadManaged): everything drift compares, nothing live.
func EncodeApplied(s catalog.State) ([]byte, error) {
	// The lists in order, copied only when they are not (ReadManaged
	// reads them in order).
	s = s.Sorted()
	doc := appliedDoc{
		Format:    appliedFormat,
		Queues:    s.Queues,
		TaskTypes: s.TaskTypes,
		Slots:     map[string][]slotRun{},
		Counters:  s.Counters,
		Health:    map[string]appliedHealth{},
	}
	if doc.Queues == nil {
		doc.Queues = []catalog.Queue{}
	}
	if doc.TaskTypes == nil {
		doc.TaskTypes = []catalog.TaskType{}
	}
	if doc.Counters == nil {
		doc.Counters = []catalog.Counter{}
	}
	for _, r := range s.Slots { // sorted by task type, then group; use is not recorded
		runs := doc.Slots[r.TaskType]
		if n := len(runs); n > 0 && runs[n-1][1] == r.First-1 && runs[n-1][2] == r.Capacity {
			runs[n-1][1] = r.Last
			continue
		}
		doc.Slots[r.TaskType] = append(runs, slotRun{r.First, r.Last, r.Capacity})
	}
	for _, c := range s.Counters {
		if c.Attached() {
			l := s.Live.Counters[c.Name]
			doc.Health[c.Name] = appliedHealth{TriggerOK: l.TriggerOK, IndexOK: l.IndexOK}
		}
	}
	return json.Marshal(doc)
}

// decodeApplied reads an applies.state document.
func decodeApplied(b []byte) (catalog.State, error) {
	var doc appliedDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		return catalog.State{}, err
	}
	if doc.Format != appliedFormat {
		return catalog.State{}, fmt.Errorf("format %d is not one this pgseq reads (%d)", doc.Format, appliedFormat)
	}
	s := catalog.State{Queues: doc.Queues, TaskTypes: doc.TaskTypes, Counters: doc.Counters}
	types := make([]string, 0, len(doc.Slots))
	n := 0
	for taskType, runs := range doc.Slots {
		types = append(types, taskType)
		for _, r := range runs {
			if r[1] >= r[0] && r[1]-r[0] < catalog.MaxConcurrency {
				n += r[1] - r[0] + 1
			}
		}
	}
	if n > maxAppliedSlots {
		return catalog.State{}, fmt.Errorf("%d slot groups: more than the %d a state can hold", n, maxAppliedSlots)
	}
	sort.Strings(types)
	s.Slots = make([]catalog.SlotRun, 0, len(doc.Slots))
	for _, taskType := range types {
		last := 0
		for _, r := range doc.Slots[taskType] {
			if r[0] <= last {
				return catalog.State{}, fmt.Errorf("slots of %q: runs of slot groups must be in ascending order, apart", taskType)
			}
			last = r[1]
			if r[0] < 1 || r[1] < r[0] || r[1]-r[0] >= catalog.MaxConcurrency || r[2] < 0 {
				return catalog.State{}, fmt.Errorf("slots of %q: %v is not a run of slot groups [first, last, capacity]", taskType, r)
			}
			s.Slots = append(s.Slots, catalog.SlotRun{TaskType: taskType, First: r[0], Last: r[1], Capacity: r[2]})
		}
	}
	s.Live.Counters = make(map[string]catalog.CounterLive, len(doc.Counters))
	for _, c := range doc.Counters {
		h, ok := doc.Health[c.Name]
		if !c.Attached() || !ok {
			h = appliedHealth{TriggerOK: true, IndexOK: true}
		}
		s.Live.Counters[c.Name] = catalog.CounterLive{TriggerOK: h.TriggerOK, IndexOK: h.IndexOK}
	}
	// The slots are in order already, by task type, then group; the rest
	// as catalog.State.Sort orders it.
	sort.Slice(s.Queues, func(i, j int) bool { return s.Queues[i].Name < s.Queues[j].Name })
	sort.Slice(s.TaskTypes, func(i, j int) bool { return s.TaskTypes[i].Name < s.TaskTypes[j].Name })
	sort.Slice(s.Counters, func(i, j int) bool { return s.Counters[i].Name < s.Counters[j].Name })
	return s, nil
}

// AppliedError means the state the newest apply recorded cannot be read
// (the row was edited by hand): a plan then shows no drift, and says why.
type AppliedError struct {
	ID  int64
	Err error
}

func (e *AppliedError) Error() string {
	return fmt.Sprintf("the state recorded by the last apply (applies row %d) cannot be read: %v", e.ID, e.Err)
}

func (e *AppliedError) Unwrap() error { return e.Err }

// ReadApplied returns the state the newest apply of schema recorded, or nil
// when there is none to compare with: a schema before version 7 (version is
// the schema's migration version, as Read returns it), no apply yet, or a
// newest apply made before version 7 (its state is NULL). A recorded state
// that cannot be decoded is an *AppliedError.
func ReadApplied(ctx context.Context, db Querier, schema string, version int) (*Applied, error) {
	if version < AppliedStateVersion {
		return nil, nil
	}
	a := &Applied{}
	var raw []byte
	err := db.QueryRow(ctx, query("applied_state", schema)).Scan(&a.ID, &a.At, &raw)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the state of the last apply: %w", err)
	case raw == nil:
		return nil, nil
	}
	if a.State, err = decodeApplied(raw); err != nil {
		return nil, &AppliedError{ID: a.ID, Err: err}
	}
	return a, nil
}
