package scenariofile

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/pgseq/pgseq/catalog"
)

// Workload is what a scenario measures.
type Workload string

// The workloads a scenario file can name.
const (
	// WorkloadDrain seeds no-op tasks and drains them end to end with
	// in-process workers (claim → handler → complete).
	WorkloadDrain Workload = "drain"
	// WorkloadExplain seeds pending tasks, ANALYZEs them and records the
	// plans of every statement inside claim and complete (EXPLAIN ANALYZE
	// with BUFFERS, in a transaction rolled back), checking their shape.
	WorkloadExplain Workload = "explain"
	// WorkloadCounters inserts rows numbered by a counter (or by one of the
	// alternatives source 000 compares) from concurrent clients.
	WorkloadCounters Workload = "counters"
	// WorkloadSoak churns tasks for a long time: a producer enqueues at a
	// steady rate below capacity while in-process workers drain, the
	// leader's maintenance purges finished tasks past retention, and the
	// claim latency, dead tuples and table size are sampled over time.
	WorkloadSoak Workload = "soak"
	// WorkloadScale times the reconciler on a large generated
	// configuration: the first apply of many limited task types, no-op
	// plans of it, and the apply of a change to 1% of them, loaded from
	// HCL files each time, with the Go heap they took (scenarios.RunScale).
	WorkloadScale Workload = "scale"
)

// Workloads lists every workload, in documentation order.
var Workloads = []Workload{WorkloadDrain, WorkloadExplain, WorkloadCounters, WorkloadSoak, WorkloadScale}

// Scenario is one benchmark scenario as a scenario file declares it
// (package scenarios documents the format; Load reads it):
//
//	scenario "enabled" {
//	  description = "100 task types, each limited to 10"
//	  workload    = "drain"
//	  against     = "baseline"   # measured interleaved with it; ratios
//	  size {
//	    tasks      = 200000
//	    rounds     = 5
//	    batch_size = 200
//	  }
//	  quick { tasks = 20000 }     # a one-line block holds one argument at most
//	  types {                     # or queue and task blocks
//	    count   = 100
//	    limited = 100
//	    limit   = 10
//	  }
//	  threshold "throughput_ratio" { min = 0.85 }
//	  threshold "claim_p99" { max = "1ms" }
//	}
type Scenario struct {
	// Name is the scenario's label, unique among the files of a run.
	Name        string
	Description string
	Workload    Workload
	// Against names the scenario this one is measured against: both run
	// interleaved in the same rounds, and ratio metrics compare this one
	// with it round by round. Empty: none (ratio thresholds are then an
	// error).
	Against string
	// Size is the full size; Quick overrides its non-zero fields under
	// --quick.
	Size  Size
	Quick Size
	// Config is the pgseq configuration the scenario runs against: the
	// inline queue/task blocks, or the generated types. The drain, explain
	// and soak workloads use its first queue; the counters and scale
	// workloads take none (scale generates its own from its Size).
	Config catalog.State
	// HandlerDelay is how long each task's handler sleeps (drain, soak).
	HandlerDelay time.Duration
	// Keys says which partition key each seeded task gets (drain).
	Keys KeySpec
	// MeasureUntil, between 0 and 1, ends the drain's throughput
	// measurement when that share of the tasks has completed (drain; 0:
	// the whole drain). A drain whose per-key limits bind for its hottest
	// keys ends with only those keys' backlogs left, run a few at a time:
	// the throughput of the part before it is what a per-key limit costs.
	MeasureUntil float64
	// Explain says what the explain workload seeds.
	Explain ExplainSpec
	// Counter says what the counters workload measures.
	Counter CounterSpec
	// Soak says what the soak workload does besides churning tasks.
	Soak SoakSpec
	// Thresholds are the scenario's acceptance criteria.
	Thresholds []Threshold

	// DeclRange is where the scenario block is declared.
	DeclRange hcl.Range
}

// Size is how big a scenario runs. Zero fields take the workload's
// defaults.
type Size struct {
	// Tasks is the number of tasks seeded (drain: drained per run;
	// explain: pending when the plans are taken).
	Tasks int `json:"tasks,omitempty"`
	// Rounds is the number of measured rounds (interleaved with the
	// scenario's Against; scale: its no-op plans).
	Rounds int `json:"rounds,omitempty"`
	// Warmup is the number of tasks of an unreported warm-up run (drain).
	Warmup int `json:"warmup,omitempty"`
	// Workers, PoolSize and BatchSize are the drain's workers, each one's
	// handlers, and the queue's batch_size.
	Workers   int `json:"workers,omitempty"`
	PoolSize  int `json:"pool_size,omitempty"`
	BatchSize int `json:"batch_size,omitempty"`
	// Clients is the number of concurrent clients (counters).
	Clients int `json:"clients,omitempty"`
	// Connections is the number of connections the clients share, as an
	// application's pool would, each insert waiting for a free one
	// (counters; 0: a connection per client). At most Clients.
	Connections int `json:"connections,omitempty"`
	// Duration is how long each counters run inserts, or how long a soak
	// run is measured (after its warm-up).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Rate is the soak's steady enqueue rate, in tasks per second.
	Rate int `json:"rate,omitempty"`
	// TaskTypes is how many limited task types the scale workload
	// declares, Limit the concurrency of each.
	TaskTypes int `json:"task_types,omitempty"`
	Limit     int `json:"limit,omitempty"`
}

// Merge returns s with the non-zero fields of o.
func (s Size) Merge(o Size) Size {
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&s.Tasks, o.Tasks)
	set(&s.Rounds, o.Rounds)
	set(&s.Warmup, o.Warmup)
	set(&s.Workers, o.Workers)
	set(&s.PoolSize, o.PoolSize)
	set(&s.BatchSize, o.BatchSize)
	set(&s.Clients, o.Clients)
	set(&s.Connections, o.Connections)
	set(&s.Rate, o.Rate)
	set(&s.TaskTypes, o.TaskTypes)
	set(&s.Limit, o.Limit)
	if o.Duration != 0 {
		s.Duration = o.Duration
	}
	return s
}

// KeySpec says which partition key each task of a drain gets (a keys
// block). Keys are named k0000001, k0000002, …; a task type without a
// partition block ignores them.
type KeySpec struct {
	// Count is the number of distinct keys (0: tasks get no key).
	Count int `json:"count,omitempty"`
	// HotShare is the share of the tasks the hottest key gets: key k's
	// share follows Zipf's law, proportional to k^-s, with the exponent s
	// that gives key 1 this share. 0: the keys take the tasks in turn
	// (task j gets key j mod Count).
	HotShare float64 `json:"hot_share,omitempty"`
}

// ExplainSpec configures the explain workload: Size.Tasks pending tasks
// spread over the configuration's task types; with Saturated, the oldest
// ones belong to a limited type whose units are all held by running tasks,
// or to one key of a partitioned type whose per-key units are (the claim
// must never scan them).
type ExplainSpec struct {
	// Saturated names a task type of the configuration with a concurrency
	// limit or a partition block (not both) whose tasks are enqueued first
	// and whose limit, or one key's, is held (empty: none).
	Saturated string
	// Batch is the claim's batch size (default: the queue's batch_size).
	Batch int
}

// CounterSpec configures the counters workload.
type CounterSpec struct {
	// Strategy is how rows are numbered: "counter_table" or "advisory_lock"
	// (pgseq's attached counter strategies), "optimistic" (MAX + 1 and a
	// retry on a unique violation, source 000's third option), or "plain"
	// (a bigserial: no gapless numbering, the reference).
	Strategy string
	// Scopes is how many scopes inserts spread over (1: one hot scope; a
	// counter block without scopes has 1).
	Scopes int
	// RowsPerScope is how many rows each scope holds before the run.
	RowsPerScope int
	// Table names the table the scenario inserts into. Every scenario of a
	// run that names the same table shares it, and declares the same
	// Strategy, Scopes and RowsPerScope. Empty: a table of its own.
	Table string
}

// SoakSpec configures the soak workload beyond its size.
type SoakSpec struct {
	// HoldSnapshot keeps a separate session in a REPEATABLE READ
	// transaction, its snapshot taken before the run starts, for the whole
	// run: no dead tuple created meanwhile can be removed (what a
	// forgotten transaction, a long report or a replica with
	// hot_standby_feedback does to a queue).
	HoldSnapshot bool
	// Storage are storage parameters set on pgseq's tables right after the
	// schema is created, before anything is enqueued (ALTER TABLE … SET),
	// to measure them before they become a migration.
	Storage []StorageSetting
}

// StorageSetting is one storage block: parameters of one pgseq table.
type StorageSetting struct {
	// Table is one of StorageTables.
	Table string
	// Params are in declaration order, each a parameter of
	// StorageParams with its value as SQL (a number, true or false).
	Params []StorageParam
}

// StorageParam is one storage parameter and its value, rendered as SQL.
type StorageParam struct {
	Name  string
	Value string
}

// Threshold is one acceptance criterion: the scenario's Metric must be at
// least Min and at most Max (a nil bound is not checked). Values are in the
// metric's unit (Metrics): durations in seconds.
type Threshold struct {
	Metric string
	Min    *float64
	Max    *float64
	// Range is where the threshold block is declared.
	Range hcl.Range
}

// The strategies of the counters workload (CounterSpec.Strategy).
const (
	// StrategyCounterTable and StrategyAdvisoryLock number the rows with a
	// pgseq counter attached to the table with that strategy.
	StrategyCounterTable = catalog.StrategyCounterTable
	StrategyAdvisoryLock = catalog.StrategyAdvisoryLock
	// StrategyOptimistic numbers without pgseq (source 000's third option):
	// each insert computes MAX(number) + 1 for its scope, a UNIQUE (scope,
	// number) constraint rejects the loser of a race, and the client retries
	// on that unique violation (scenarios.CounterRun.Retries).
	StrategyOptimistic = "optimistic"
	// StrategyPlain numbers with a bigserial: fast, not gapless, not per
	// scope. The reference the others are measured against.
	StrategyPlain = "plain"
)

// MaxKeys is the most distinct partition keys a keys block may declare.
const MaxKeys = 10_000_000

// MaxScaleTypes is the most task types a scale scenario declares
// (size.task_types).
const MaxScaleTypes = 1_000_000
