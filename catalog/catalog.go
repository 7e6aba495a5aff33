package catalog

import (
	"slices"
	"sort"
)

// MaxConcurrency is the largest concurrency limit a task type may declare.
const MaxConcurrency = 1_000_000

// Queue holds the settings workers obey for one queue. All fields are set:
// package spec fills in defaults, so two equal queues mean equal behaviour.
type Queue struct {
	// Name is the queue's unique name.
	Name string `json:"name"`
	// BatchSize is the most tasks a worker claims in one round trip (≥ 1).
	BatchSize int `json:"batch_size"`
	// MaxRetries is how many times a failed task is retried before it is
	// dead-lettered, for task types that do not set their own (≥ 0).
	MaxRetries int `json:"max_retries"`
	// Backoff sets the delay before each retry.
	Backoff Backoff `json:"backoff"`
	// WorkerTimeout is how old a worker's last heartbeat may be before the
	// worker is declared dead and its tasks are recovered.
	WorkerTimeout Duration `json:"worker_timeout"`
	// LeaderLease is how long an elected leader holds its lease.
	LeaderLease Duration `json:"leader_lease"`
	// Retention says how long finished tasks are kept before purging.
	Retention Retention `json:"retention"`
}

// MaxBackoffFactor is the largest backoff factor a queue may declare: at
// 100 the tenth retry already waits 10^18 times the first, so larger
// factors only reach max sooner.
const MaxBackoffFactor = 100.0

// Backoff is an exponential retry delay: Initial·Factor^(attempt-1), capped at
// Max, with ±Jitter (a fraction in [0,1]) of random spread.
type Backoff struct {
	Initial Duration `json:"initial"`
	Max     Duration `json:"max"`
	Factor  float64  `json:"factor"`
	Jitter  float64  `json:"jitter"`
}

// Retention says how long finished tasks are kept.
type Retention struct {
	Completed  Duration `json:"completed"`
	DeadLetter Duration `json:"dead_letter"`
}

// TaskType is one declared task type.
type TaskType struct {
	// Name is the task type as workers and enqueue calls name it.
	Name string `json:"name"`
	// Queue is the name of the queue the type's tasks are enqueued on.
	Queue string `json:"queue"`
	// Concurrency is the global limit on running tasks of this type across
	// all workers; 0 means unlimited (the claim's fast path).
	Concurrency int `json:"concurrency"`
	// MaxRetries overrides the queue's retry count when not nil.
	MaxRetries *int `json:"max_retries"`
	// Priority is the default priority of enqueued tasks (higher first).
	Priority int `json:"priority"`
	// Partition is the type's per-key limit; nil for a type without a
	// partition block.
	Partition *Partition `json:"partition,omitempty"`
}

// Partition is a task type's per-key limit: at most Concurrency tasks of
// one partition key run at once (and hold a unit while admitted).
type Partition struct {
	// By is the top-level payload field a task's key is read from when its
	// enqueue gives none ("tenant_id" for by = "payload.tenant_id"); ""
	// when every enqueue must give the key.
	By string `json:"by,omitempty"`
	// Concurrency is the per-key limit.
	Concurrency int `json:"concurrency"`
}

// PartitionByPrefix starts a partition block's by: the field is a
// top-level field of the task's payload.
const PartitionByPrefix = "payload."

// Limited reports whether the task type has a concurrency limit.
func (t TaskType) Limited() bool { return t.Concurrency > 0 }

// Partitioned reports whether the task type has a per-key limit.
func (t TaskType) Partitioned() bool { return t.Partition != nil }

// SlotGroup is one row of a task type's concurrency slots. The capacities of
// a type's live groups sum to its limit; a group with capacity 0 is draining.
type SlotGroup struct {
	TaskType string `json:"task_type"`
	Group    int    `json:"slot_group"`
	Capacity int    `json:"capacity"`
	// Used is the number of tasks holding a unit of the group: running ones
	// and pending ones admitted but not claimed yet. It is a runtime value:
	// context for plans, never drift.
	Used int `json:"used"`
}

// State is a complete set of managed objects: desired (from HCL, with no
// slot groups or live values) or actual (from the database).
type State struct {
	Queues    []Queue    `json:"queues"`
	TaskTypes []TaskType `json:"task_types"`
	// Counters are the declared gapless counters.
	Counters []Counter `json:"counters,omitempty"`
	// Access lists the access levels given to database roles (desired:
	// the access block; actual: what pgseq granted, recorded in the grants
	// table), sorted by SortGrants.
	Access []Grant `json:"access,omitempty"`
	// Slots are the concurrency slot rows, actual state only, as runs of
	// consecutive groups alike (Runs, Groups).
	Slots []SlotRun `json:"slots,omitempty"`
	// Live holds runtime context, actual state only.
	Live Live `json:"live"`
}

// Live is runtime context read beside the actual state. Plans show it; it
// never makes a change.
type Live struct {
	// Running counts running tasks per task type.
	Running map[string]int `json:"running,omitempty"`
	// Keys holds, per task type with partition keys that have work (a
	// partitioned type's, or one whose partition block was removed while
	// its tasks held units), its keys by units in use; a type without such
	// keys has no entry. Plans read from it how many keys are at the
	// per-key limit, and over a lowered one.
	Keys map[string]KeyUses `json:"keys,omitempty"`
	// Unfinished counts pending and running tasks per queue.
	Unfinished map[string]int64 `json:"unfinished,omitempty"`
	// Counters holds each actual counter's issued values and object health.
	Counters map[string]CounterLive `json:"counters,omitempty"`
	// Attach holds, per desired attached counter that an apply would attach
	// with a backfill (new, or rebuilt for another table, column, scope or
	// strategy), what the backfill finds in its table.
	Attach map[string]AttachFacts `json:"attach,omitempty"`
	// Access holds, per role pgseq manages (and per role the configuration
	// names), what it holds in the schema: whether it exists and its
	// privileges. Plans compare it with the levels to repair changes made
	// outside pgseq.
	Access map[string]RoleAccess `json:"access,omitempty"`
}

// Sort puts every list in its canonical order: queues and task types by
// name, slots by task type then group.
func (s *State) Sort() {
	sort.Slice(s.Queues, func(i, j int) bool { return s.Queues[i].Name < s.Queues[j].Name })
	sort.Slice(s.TaskTypes, func(i, j int) bool { return s.TaskTypes[i].Name < s.TaskTypes[j].Name })
	sortCounters(s.Counters)
	SortGrants(s.Access)
	slices.SortFunc(s.Slots, compareSlotRuns)
}

// Queue returns the queue with the given name.
func (s *State) Queue(name string) (Queue, bool) {
	for _, q := range s.Queues {
		if q.Name == name {
			return q, true
		}
	}
	return Queue{}, false
}

// DefaultQueue returns a queue with pgseq's default settings.
func DefaultQueue(name string) Queue {
	return Queue{
		Name:       name,
		BatchSize:  100,
		MaxRetries: 3,
		Backoff: Backoff{
			Initial: Duration(1_000_000_000),
			Max:     Duration(10 * 60 * 1_000_000_000),
			Factor:  2,
			Jitter:  0.2,
		},
		WorkerTimeout: Duration(30 * 1_000_000_000),
		LeaderLease:   Duration(15 * 1_000_000_000),
		Retention: Retention{
			Completed:  Duration(7 * 24 * 3600 * 1_000_000_000),
			DeadLetter: Duration(30 * 24 * 3600 * 1_000_000_000),
		},
	}
}
