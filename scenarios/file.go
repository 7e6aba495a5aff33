// # Scenario files
//
// Benchmark scenarios are declared in HCL files kept in version control
// beside the code they measure: `pgseq bench run scenarios/` runs every
// scenario of the *.hcl files of a directory. Package scenariofile reads
// them: scenariofile.Load files and directories, ParseScenarios
// (scenariofile.Parse) in-memory sources; both report every problem at
// once as hcl.Diagnostics pointing at the offending source, which
// spec.WriteDiagnostics prints (scenariofile.ReadFiles supplies the
// sources).
//
// A scenario file holds only scenario blocks, each named by its label:
//
//	scenario "enabled" {
//	  description   = "100 task types, each limited to 10"
//	  workload      = "drain"      # what it measures: drain, explain, counters, soak or scale
//	  against       = "baseline"   # the reference it runs interleaved with
//	  handler_delay = "20ms"       # drain only: how long each handler sleeps
//
//	  size {                       # how big it runs
//	    tasks      = 200000
//	    rounds     = 5
//	    warmup     = 20000
//	    workers    = 1
//	    pool_size  = 4
//	    batch_size = 200
//	  }
//	  quick {                      # overrides of size under --quick
//	    tasks = 20000
//	  }
//
//	  types {                      # a generated configuration ...
//	    count   = 100
//	    limited = 100
//	    limit   = 10
//	  }
//	  # ... or inline queue and task blocks instead of types:
//	  # queue "bench" { batch_size = 200 }
//	  # task "noop" { queue = "bench" }
//
//	  threshold "throughput_ratio" {
//	    min = 0.85
//	  }
//	  threshold "slot_release" {
//	    max = "1ms"
//	  }
//	}
//
// The order of scenarios and files does not matter to their meaning;
// scenarios are returned in file name order, then in the order of their
// blocks. Values are literals: references, function calls and operators
// are rejected, and an argument set to null counts as left out. HCL's
// single-line block syntax takes one argument at most (quick { tasks =
// 20000 }); blocks with more write one argument per line.
//
// # Names and workloads
//
// A scenario name starts with a lowercase letter, followed by at most 62
// lowercase letters, digits, underscores or hyphens
// (^[a-z][a-z0-9_-]{0,62}$), and is unique across all the files of a run.
// description is free text for reports.
//
// workload is required and says what the scenario measures
// (scenariofile.Workload):
//
//   - "drain" seeds no-op tasks and drains them end to end with in-process
//     workers (claim → handler → complete).
//   - "explain" seeds pending tasks and records the plans of the statements
//     of claim and complete under EXPLAIN ANALYZE.
//   - "counters" inserts rows numbered by a gapless counter, or by one of
//     the alternatives source 000 compares, from concurrent clients.
//   - "soak" churns tasks for a long time: a producer enqueues at a steady
//     rate while in-process workers drain and the leader's maintenance
//     purges finished tasks past retention; claim latency, dead tuples and
//     table size are sampled over time (see # soak below).
//   - "scale" times the reconciler on a large generated configuration:
//     the first apply of many limited task types, no-op plans of it and
//     the apply of a change to 1% of them (see # scale below).
//
// # Groups: against
//
// against names another scenario of the same workload, its reference: the
// two run interleaved, round after round, and ratio metrics
// (throughput_ratio) divide this scenario's figure by the reference's of
// the same round. A soak or scale scenario runs on its own and takes no
// against.
// Groups are stars: many members may name one reference,
// but a reference names none itself, and no scenario names itself. A
// member runs in its reference's rounds: its rounds may be left out (the
// runner runs the group in the reference's rounds), and when it gives
// them they must equal the reference's, in size and under --quick (size
// merged with quick). The shipped files give them in every member.
//
// # Size
//
// size sets how big the scenario runs, quick overrides any of the same
// arguments under --quick. Every argument is optional and a whole number
// of at least 1 (duration: a positive duration); what is left out takes the
// workload's default when the scenario runs (the parser leaves it zero).
// Each workload takes its own arguments:
//
//	tasks       drain, explain                   tasks seeded (explain: pending when the plans are taken), ≤ 100000000
//	rounds      drain, explain, counters, scale  measured rounds (scale: no-op plans), ≤ 1000
//	warmup      drain                            tasks of an unreported warm-up run, ≤ 100000000
//	workers     drain, soak                      workers draining at once, ≤ 1000
//	pool_size   drain, soak                      handler goroutines per worker, ≤ 10000
//	batch_size  drain, explain, soak             the queue's batch_size, ≤ 10000 (generated types only)
//	clients     counters                         concurrent clients, ≤ 1000
//	connections counters                         connections the clients share, ≤ clients; default one per client
//	duration    counters, soak                   how long each counters run inserts, how long a soak is measured: "1s", "30m"
//	rate        soak                             tasks enqueued per second, ≤ 1000000
//	task_types  scale                            limited task types declared, ≤ 1000000
//	limit       scale                            the concurrency of each, ≤ 1000000
//
// With connections, the clients share that many connections, as an
// application's pool in front of them would: each insert waits for a free
// one, and its latency includes the wait. There are never more connections
// than clients, in size and under --quick (size merged with quick; clients
// left out count as the default 8).
//
// Durations here and in handler_delay are Go durations: a sequence of
// numbers with units ns, us, ms, s, m and h ("20ms", "1.5s", "1m30s").
// handler_delay, for drain and soak only, is optional and positive.
//
// # Configuration: types or queue and task blocks
//
// A drain, explain or soak scenario runs against a pgseq configuration
// with at least one queue and one task type, given in one of two ways,
// never both. The counters workload takes none, nor does the scale
// workload, which generates its own from its size.
//
// types generates it:
//
//	types {
//	  count   = 100      # task types, 1..100000: "noop" when 1, else noop.0000, noop.0001, …
//	  limited = 100      # how many of them, the first ones, are limited: 0..count, default 0
//	  limit   = 10       # their concurrency, 1..1000000; required when limited > 0
//	  queue   = "bench"  # the one queue they are all on, default "bench"
//	}
//
// The queue has catalog.DefaultQueue's settings, and size.batch_size as
// its batch_size when set.
//
// Otherwise queue and task blocks declare it inline, written exactly as in
// a pgseq configuration file and checked by the same rules (package spec):
//
//	queue "bench" {
//	  batch_size = 200
//	}
//	task "blocked" {
//	  queue       = "bench"
//	  concurrency = 5
//	}
//
// The queue's batch_size is then set in its queue block, not in size. The
// drain and explain workloads run on the configuration's first queue in
// name order.
//
// # keys
//
// A drain scenario may give its tasks partition keys, for task types with a
// partition block (which need one; a type without ignores them):
//
//	keys {
//	  count     = 10000   # distinct keys k0000001, k0000002, …, 1..10000000
//	  hot_share = 0.3     # the hottest key's share of the tasks (Zipf's law); default: keys in turn
//	}
//
// With hot_share, key k gets tasks in proportion to k^-s, s chosen so that
// key 1 gets that share; the sequence is the same in every run. Without,
// task j gets key j mod count.
//
// measure_until = 0.3 (drain only) ends each run when that share of its
// tasks has completed, and its throughput is theirs: a drain whose hottest
// keys' limits bind ends with only their backlogs left, a few tasks
// running at a time, which says nothing about what the limit costs. A
// scenario and the one it is measured against measure the same share.
//
// # explain
//
// An explain scenario may have one explain block:
//
//	explain {
//	  saturated = "blocked"   # a limited task type whose tasks are the oldest and whose units are all held
//	  batch     = 100         # the claim's batch size, 1..10000; default the queue's batch_size
//	}
//
// # counter
//
// A counters scenario has exactly one counter block:
//
//	counter {
//	  strategy       = "counter_table"  # required: counter_table, advisory_lock, optimistic or plain
//	  scopes         = 1                # scopes the inserts spread over, 1..1000000, default 1 (one hot scope)
//	  rows_per_scope = 10000            # rows each scope holds before the run, 0..10000000, default 0
//	  table          = "hot"            # a table shared with the scenarios naming it; default one of its own
//	}
//
// counter_table and advisory_lock are pgseq's attached counter strategies,
// optimistic is MAX + 1 with a retry on a unique violation (source 000's
// third option), plain a bigserial that numbers without gaps guarantee,
// the reference.
//
// When scopes equals the clients, each client inserts into a scope of its
// own (client i into scope i+1), so no two clients meet on a scope;
// otherwise every insert picks one of the scopes at random.
//
// Each scenario inserts into a table of its own, unless it names one with
// table: every scenario of the run that names the same table shares it
// (the rows a run inserts are deleted after it, so each run starts from
// the same rows), and they all declare the same strategy, scopes and
// rows_per_scope. A table name starts with a lowercase letter, followed by
// at most 39 lowercase letters, digits or underscores
// (^[a-z][a-z0-9_]{0,39}$).
//
// pgseq bench counters runs the counters scenarios of
// scenarios/bench-counters/counters.hcl, shipped inside the binary: its
// cases, sized by its flags (--rounds, --duration) and compared by its
// report, so they give only clients, connections and their counter block.
//
// # soak
//
// A soak scenario runs once, for size.duration after a warm-up of one
// sample interval (duration/30, at least 1s, at most 30s). A producer
// enqueues size.rate tasks per second in small batches (every 50 ms),
// spread over the configuration's task types in turn, while size.workers
// workers drain the first queue. Keep the rate below what the workers
// drain, and give the queue a short retention and leader_lease, so that
// the leader's maintenance (every leader_lease/3) purges completed tasks
// during the run:
//
//	queue "soak" {
//	  batch_size   = 100
//	  leader_lease = "3s"              # maintenance every second
//	  retention {
//	    completed = "10s"
//	  }
//	}
//
// It samples every interval: the claim round trips of that interval (p50,
// p99), tasks completed per second, and per table (tasks,
// concurrency_slots) live and dead tuples, total size with indexes,
// vacuum and autovacuum counts, updates (HOT or not) and deletes, and the
// age of the oldest snapshot in the database. Two more settings:
//
//	hold_snapshot = true    # a separate session holds a REPEATABLE READ snapshot for the whole run
//
//	storage "tasks" {       # storage parameters set right after the schema is created
//	  fillfactor                     = 90
//	  autovacuum_vacuum_scale_factor = 0.01
//	  autovacuum_vacuum_cost_delay   = 0
//	}
//
// A storage block is labelled with a pgseq table (tasks,
// concurrency_slots, workers or leader), at most one per table, and takes
// these parameters (their PostgreSQL ranges): fillfactor (10..100),
// autovacuum_enabled (true or false), autovacuum_vacuum_threshold,
// autovacuum_vacuum_insert_threshold (-1 disables), autovacuum_analyze_threshold
// (whole numbers), autovacuum_vacuum_scale_factor,
// autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor
// (0..100), autovacuum_vacuum_cost_delay (milliseconds, 0..100) and
// autovacuum_vacuum_cost_limit (1..10000). hold_snapshot and storage are
// for soak scenarios only.
//
// # scale
//
// A scale scenario runs once, on a configuration it generates:
// size.task_types task types named t000001, t000002, … on one queue
// "default", each with concurrency = size.limit, written as HCL files of
// at most 10,000 task blocks each into a temporary directory. In a fresh
// schema it times three steps, each loading the files with spec.Load as
// the CLI does:
//
//   - first_apply: load, plan and apply, as pgseq apply --auto-approve
//     (the plan rendered, to nowhere, as it would be shown);
//   - noop_plan, size.rounds times: load and plan as pgseq plan, which
//     must find nothing to change;
//   - change_1pct: the files rewritten with the first 1% of the types (at
//     least one) at half the limit (2 when the limit is 1), then load,
//     plan and apply; the plan must change exactly those types.
//
// peak_heap is the most Go heap in use sampled every 10 ms over the three
// steps, above the heap in use before them (after a garbage collection):
// the heap, not the process's resident size. Defaults: task_types =
// 10000, limit = 1000, rounds = 3. A scale scenario takes no against,
// types, queue, task, explain or counter.
//
//	scenario "scale-100k" {
//	  workload = "scale"
//	  size {
//	    task_types = 100000
//	    limit      = 1000
//	    rounds     = 3
//	  }
//	  quick { task_types = 10000 }
//	  threshold "first_apply" { max = "60s" }
//	  threshold "peak_heap" { max = 500000000 }
//	}
//
// # Thresholds
//
// Each threshold block is an acceptance criterion of the scenario, labelled
// with the metric it bounds; a metric is bounded once per scenario:
//
//	threshold "claim_p99" {
//	  min = "100us"   # optional lower bound
//	  max = "1ms"     # optional upper bound; at least one of min and max
//	}
//
// The metric must be one of the scenario's workload (scenariofile.Metrics):
//
//	drain     throughput, throughput_ratio, ideal_share, claim_p50, claim_p99,
//	          complete_p50, complete_p99, running_max, slot_release
//	explain   rows_examined, buffers, seq_scans, claim_time
//	counters  throughput, throughput_ratio, insert_p50, insert_p99
//	soak      throughput, claim_p50_first, claim_p50_last, claim_p50_growth,
//	          claim_p99_first, claim_p99_last, claim_p99_growth,
//	          dead_tuples_max, table_size_last, tasks_purged
//	scale     first_apply, noop_plan, change_1pct, peak_heap
//
// A ratio metric (throughput_ratio) needs against. Bounds are numbers in
// the metric's unit, never negative, and min is at most max. A metric in
// seconds (the latencies, slot_release, claim_time, the scale workload's
// steps) takes a duration string such as "1ms" or "250us" as well as a
// bare number of seconds; both are stored in seconds (scenariofile.Threshold). A metric
// in bytes (table_size_last, peak_heap) takes a number of bytes:
// 500000000.
package scenarios

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// ParseScenarios parses and validates scenario files held in memory, file
// name to content, as pgseq bench run reads them (scenariofile.Parse).
func ParseScenarios(files map[string][]byte) ([]scenariofile.Scenario, hcl.Diagnostics) {
	return scenariofile.Parse(files)
}
