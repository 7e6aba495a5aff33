# Drain scenarios: the queue runtime end to end. Each run seeds no-op tasks
# into a fresh schema with the scenario's configuration and drains them with
# in-process workers (claim → handler → complete, every commit durable).
#
# Source 002 ("Task-level concurrency with slot groups") names the
# throughput scenarios and their acceptance criteria:
#   - no limits: no regression (the claim's fast path is unchanged);
#   - every task type limited: less than 15% slower;
#   - one limited type among many: less than 5% overhead;
#   - slot lock and release: under 1 ms each.
# A limit costs something only relative to the same drain without one, so
# the limited scenarios run interleaved with a reference (against) and are
# judged on the ratio of each round's throughputs.

# The reference of source 002's throughput comparison: one queue, one task
# type, no limit. Its absolute throughput is pgseq's own target for the
# fast path on a small machine.
scenario "baseline" {
  description = "1 queue, 1 task type, no limit"
  workload    = "drain"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1 # on 2 cores one worker's claim and complete streams keep PostgreSQL busy
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count = 1
  }

  # pgseq's target for the unlimited fast path (TargetTasksPerSec).
  threshold "throughput" {
    min = 20000
  }
}

# Source 002's "concurrency-enabled": every task type has a limit. 100 types
# limited to 10 each allow 1,000 running tasks, more than one worker ever
# holds, so the limit never binds: what is measured is the cost of keeping
# count.
scenario "enabled" {
  description = "100 task types, each limited to 10"
  workload    = "drain"
  against     = "baseline"

  # The baseline's size, in the same rounds.
  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count   = 100
    limited = 100
    limit   = 10
  }

  # Source 002: "all tasks with limits: <15% throughput decrease".
  threshold "throughput_ratio" {
    min = 0.85
  }
  # Source 002: "slot lock/release should be <1ms each" (server time of the
  # slot step per unit released).
  threshold "slot_release" {
    max = "1ms"
  }
}

# Source 002's "concurrency-mixed": 99 unlimited types and one limited; the
# unlimited ones must not pay for the limited one.
scenario "mixed" {
  description = "100 task types, 1 of them limited to 10"
  workload    = "drain"
  against     = "baseline"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count   = 100
    limited = 1
    limit   = 10
  }

  # Source 002: "mixed queue (1 with, 99 without): <5% overhead".
  threshold "throughput_ratio" {
    min = 0.95
  }
  # Source 002: slot lock/release under 1 ms.
  threshold "slot_release" {
    max = "1ms"
  }
}

# Many limited types on one queue, each with a large limit: the claim's cost
# must not grow with the number of limited types or with the limits.
scenario "many" {
  description = "1,000 task types, each limited to 1,000"
  workload    = "drain"
  against     = "baseline"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count   = 1000
    limited = 1000
    limit   = 1000
  }

  # pgseq's own target (TargetMany): no more than 20% slower.
  threshold "throughput_ratio" {
    min = 0.80
  }
  # Source 002: slot lock/release under 1 ms.
  threshold "slot_release" {
    max = "1ms"
  }
}

# Source 002's "concurrency-high": 8 workers, 100,000 tasks and aggressive
# batching. It has a reference of its own with the same workers, since
# eight workers drain differently from one.
scenario "high-baseline" {
  description = "1 queue, 1 task type, no limit; 8 workers, batches of 500"
  workload    = "drain"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 8
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count = 1
  }
}

# One type limited to 500 (source 002 used it to exercise slot groups):
# eight workers holding batches of 500 make the limit bind now and then.
scenario "high" {
  description = "1 task type limited to 500; 8 workers, batches of 500"
  workload    = "drain"
  against     = "high-baseline"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 8
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count   = 1
    limited = 1
    limit   = 500
  }

  # Source 002's bar for limited types ("<15% throughput decrease").
  threshold "throughput_ratio" {
    min = 0.85
  }
}

# A limit that binds: one type limited to 10 whose handlers sleep 20 ms, so
# at most 10 run at once and the ideal is 10 / 20 ms = 500 tasks/s. It is
# judged against that ideal, not against another scenario.
scenario "binding" {
  description   = "1 task type limited to 10, handlers sleep 20ms"
  workload      = "drain"
  handler_delay = "20ms"

  # The warm-up opens the workers' connections and runs the functions
  # once; at 20 ms a task a longer one only adds wall time (the default,
  # as many tasks as a round, would double the scenario's).
  size {
    tasks     = 5000
    rounds    = 5
    warmup    = 500
    workers   = 4 # 16 handlers in all, more than the limit lets run
    pool_size = 4
  }
  quick {
    tasks  = 1000
    warmup = 100
  }

  types {
    count   = 1
    limited = 1
    limit   = 10
  }

  # pgseq's own target (TargetBinding): a binding limit is kept busy.
  threshold "ideal_share" {
    min = 0.90
  }
  # The limit itself: never more than 10 running in any sample.
  threshold "running_max" {
    max = 10
  }
}

# Per-key limits (docs/configuration.md). A partitioned type lets at most
# its partition's concurrency run per key. These pairs measure what keeping
# count per key costs, against the same drain without it.

# The reference of "partitioned": the same tasks and keys (which a type
# without a partition block ignores), only the type's limit of 100.
#
# The keys follow Zipf's law with the hottest key given 30% of the tasks.
# With a per-key limit of 2 out of 100 running, the 7 hottest keys (61% of
# the tasks) each need more than their 2% of the running tasks: their
# limits bind, as they should, and the drain ends with only their backlogs
# left, 14 tasks running at a time. Throughput is therefore measured over
# the first 30% of the tasks completed, while every round still has the
# other keys' tasks to run (about 45% in, the unbound keys run out), in
# both scenarios alike.
scenario "partitioned-reference" {
  description   = "1 task type limited to 100; 10,000 keys (zipf, hottest 30%), no per-key limit"
  workload      = "drain"
  measure_until = 0.3

  size {
    tasks     = 200000
    rounds    = 5
    warmup    = 20000
    workers   = 1
    pool_size = 4
  }
  quick {
    tasks  = 40000
    rounds = 5
    warmup = 5000
  }

  keys {
    count     = 10000
    hot_share = 0.3
  }

  queue "bench" {
    batch_size = 200
  }
  task "noop" {
    queue       = "bench"
    concurrency = 100
  }
}

# Issue "Per-key limits": 10,000 keys, at most 2 running per key, type
# limit 100; throughput at least 0.90 of the same drain with only the
# type's limit.
scenario "partitioned" {
  description   = "1 task type limited to 100 and to 2 per key; 10,000 keys (zipf, hottest 30%)"
  workload      = "drain"
  against       = "partitioned-reference"
  measure_until = 0.3

  # The reference's size, in the same rounds.
  size {
    tasks     = 200000
    rounds    = 5
    warmup    = 20000
    workers   = 1
    pool_size = 4
  }
  quick {
    tasks  = 40000
    rounds = 5
    warmup = 5000
  }

  keys {
    count     = 10000
    hot_share = 0.3
  }

  queue "bench" {
    batch_size = 200
  }
  task "noop" {
    queue       = "bench"
    concurrency = 100
    partition {
      concurrency = 2
    }
  }

  threshold "throughput_ratio" {
    min = 0.90
  }
}

# The reference of "keys-scale": every task of one key, whose limit of
# 1,000 never binds (one worker holds at most a few hundred tasks).
scenario "keys-one" {
  description = "1 task type limited to 1,000 per key; 1 key"
  workload    = "drain"

  size {
    tasks     = 200000
    rounds    = 5
    warmup    = 20000
    workers   = 1
    pool_size = 4
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  keys {
    count = 1
  }

  queue "bench" {
    batch_size = 200
  }
  task "noop" {
    queue = "bench"
    partition {
      concurrency = 1000
    }
  }
}

# Issue "Per-key limits": the per-task cost does not grow with the number
# of keys. The same tasks over 100,000 keys in turn (2 tasks per key at
# full size): each key's row is created by its first task and deleted with
# its last. At least 0.90 of the one-key drain.
scenario "keys-scale" {
  description = "1 task type limited to 1,000 per key; 100,000 keys"
  workload    = "drain"
  against     = "keys-one"

  # The reference's size, in the same rounds.
  size {
    tasks     = 200000
    rounds    = 5
    warmup    = 20000
    workers   = 1
    pool_size = 4
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  keys {
    count = 100000
  }

  queue "bench" {
    batch_size = 200
  }
  task "noop" {
    queue = "bench"
    partition {
      concurrency = 1000
    }
  }

  threshold "throughput_ratio" {
    min = 0.90
  }
}
