# Query-analysis scenarios: a million pending tasks, then the plans of every
# statement inside claim and complete under EXPLAIN ANALYZE with BUFFERS (in
# a transaction rolled back), checked for their shape.
#
# Source 002 asks for EXPLAIN ANALYZE of the claim over 1M pending tasks in
# three cases — no limit, one limited type, every type limited — and for
# index usage to be verified. The thresholds turn that into checks that
# fail when a plan goes wrong, whatever the machine:
#   - seq_scans max 0: no statement reads the tasks table from end to end;
#   - rows_examined max 400: no plan node reads more than a few batches'
#     worth of tasks (4 × the batch of 100), however many are pending —
#     pgseq's own bound for "the claim is an index scan that stops early";
#   - buffers max 2000: the statements of one claim touch a bounded number
#     of pages (index and heap pages of 100 tasks, a few times over), not a
#     number that grows with the queue.

# Source 002's "concurrency-baseline": 1M pending, no limit.
scenario "explain-no-limit" {
  description = "1M pending tasks of 1 task type, no limit"
  workload    = "explain"

  size {
    tasks = 1000000
  }
  quick {
    tasks = 100000
  }

  types {
    count = 1
  }
  explain {
    batch = 100
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "rows_examined" {
    max = 400
  }
  threshold "buffers" {
    max = 2000
  }
}

# Source 002's "concurrency-single-task": 1M pending, one task type with
# concurrency 10 among 100.
scenario "explain-one-limited" {
  description = "1M pending tasks of 100 task types, 1 of them limited to 10"
  workload    = "explain"

  size {
    tasks = 1000000
  }
  quick {
    tasks = 100000
  }

  types {
    count   = 100
    limited = 1
    limit   = 10
  }
  explain {
    batch = 100
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "rows_examined" {
    max = 400
  }
  threshold "buffers" {
    max = 2000
  }
}

# Source 002's "concurrency-all-tasks": 1M pending, every task type with
# concurrency 10.
scenario "explain-all-limited" {
  description = "1M pending tasks of 100 task types, each limited to 10"
  workload    = "explain"

  size {
    tasks = 1000000
  }
  quick {
    tasks = 100000
  }

  types {
    count   = 100
    limited = 100
    limit   = 10
  }
  explain {
    batch = 100
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "rows_examined" {
    max = 400
  }
  threshold "buffers" {
    max = 2000
  }
}

# The case a limit makes hard: the oldest million tasks belong to a limited
# type whose units are all held by running tasks, and the claimable tasks
# of an unlimited type come after them. A claim that walks the saturated
# type's tasks before skipping them would examine a million rows; pgseq's
# claim must never see them (only admitted tasks are claimable).
scenario "explain-saturated" {
  description = "1M pending tasks of a saturated type limited to 5, ahead of an unlimited type's"
  workload    = "explain"

  size {
    tasks = 1000000
  }
  quick {
    tasks = 100000
  }

  queue "bench" {
    batch_size = 100
  }
  task "blocked" {
    queue       = "bench"
    concurrency = 5
  }
  task "free" {
    queue = "bench"
  }
  explain {
    saturated = "blocked"
    batch     = 100
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "rows_examined" {
    max = 400
  }
  threshold "buffers" {
    max = 2000
  }
}

# Issue "Per-key limits": the oldest million tasks belong to one key of a
# partitioned type, at its per-key limit (its 2 units held by running
# tasks), and the claimable tasks of an unlimited type come after them. The
# key's tasks wait for it out of every claimable path: a claim examines
# none of them.
scenario "explain-saturated-key" {
  description = "1M pending tasks of one saturated key (2 per key), ahead of 1M of an unlimited type"
  workload    = "explain"

  size {
    tasks = 2000000
  }
  quick {
    tasks = 100000
  }

  queue "bench" {
    batch_size = 100
  }
  task "render" {
    queue = "bench"
    partition {
      concurrency = 2
    }
  }
  task "free" {
    queue = "bench"
  }
  explain {
    saturated = "render"
    batch     = 100
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "rows_examined" {
    max = 400
  }
  threshold "buffers" {
    max = 2000
  }
}
