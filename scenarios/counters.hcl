# Counters scenarios: concurrent clients insert rows numbered per scope
# (project_id) without gaps, each insert its own durable transaction.
#
# Source 000 ("Project-scoped auto-incrementing task index") compares three
# ways to number rows per project, and claims how each behaves:
#   - counter_table: a counter row per scope, locked and incremented by the
#     insert's trigger — "O(1)", "constant time regardless of task count";
#   - advisory_lock: a transaction-level advisory lock per scope, then
#     MAX(index) + 1 — "degrades with task count per project";
#   - optimistic: MAX(index) + 1 without a lock and a retry when the unique
#     constraint rejects a duplicate — "degrades under high contention",
#     "unpredictable latency".
# counter_table and advisory_lock are pgseq's attached counter strategies;
# optimistic is measured for comparison. plain numbers with a bigserial (not
# per scope, not gapless): the reference for what numbering costs.
#
# The groups below check those claims: the cost of numbering (against
# plain), contention on one hot scope (64 clients against 8), and growth
# with the rows already in a scope (100,000 rows against 1,000). Each
# member runs interleaved with its reference, in its reference's rounds.

# --- The cost of numbering: 8 clients spread over 1,000 scopes ----------

# The reference: the same table and inserts, numbered by a bigserial.
scenario "spread-plain" {
  description = "plain bigserial, 8 clients on 1,000 scopes"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "plain"
    scopes         = 1000
    rows_per_scope = 100
  }
}

scenario "spread-counter_table" {
  description = "attached counter (counter_table), 8 clients on 1,000 scopes"
  workload    = "counters"
  against     = "spread-plain"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1000
    rows_per_scope = 100
  }

  # pgseq's target (TargetAttachedVsPlain): an attached counter keeps at
  # least 70% of the plain table's insert throughput.
  threshold "throughput_ratio" {
    min = 0.70
  }
}

scenario "spread-advisory_lock" {
  description = "attached counter (advisory_lock), 8 clients on 1,000 scopes"
  workload    = "counters"
  against     = "spread-plain"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 1000
    rows_per_scope = 100
  }
}

scenario "spread-optimistic" {
  description = "MAX + 1 with a retry on conflict, 8 clients on 1,000 scopes"
  workload    = "counters"
  against     = "spread-plain"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "optimistic"
    scopes         = 1000
    rows_per_scope = 100
  }
}

# --- Contention: one hot scope (10,000 rows), 8 clients and 64 ----------
# Every insert goes to the same scope, so numbering serializes; the ratio
# says whether throughput holds when eight times as many clients queue up.

scenario "hot-counter_table-8" {
  description = "counter_table, one hot scope, 8 clients"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
  }
}

scenario "hot-counter_table-64" {
  description = "counter_table, one hot scope, 64 clients"
  workload    = "counters"
  against     = "hot-counter_table-8"

  size {
    rounds   = 6
    clients  = 64
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
  }

  # pgseq's target (TargetHot64Vs8): one hot scope with 64 clients keeps at
  # least 80% of its 8-client throughput.
  threshold "throughput_ratio" {
    min = 0.80
  }
}

scenario "hot-advisory_lock-8" {
  description = "advisory_lock, one hot scope, 8 clients"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 1
    rows_per_scope = 10000
  }
}

scenario "hot-advisory_lock-64" {
  description = "advisory_lock, one hot scope, 64 clients"
  workload    = "counters"
  against     = "hot-advisory_lock-8"

  size {
    rounds   = 6
    clients  = 64
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 1
    rows_per_scope = 10000
  }
}

# Source 000 expects this one to suffer most: every client reads the same
# MAX, all but one insert fails on the unique constraint and retries.
scenario "hot-optimistic-8" {
  description = "MAX + 1 with a retry on conflict, one hot scope, 8 clients"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "optimistic"
    scopes         = 1
    rows_per_scope = 10000
  }
}

scenario "hot-optimistic-64" {
  description = "MAX + 1 with a retry on conflict, one hot scope, 64 clients"
  workload    = "counters"
  against     = "hot-optimistic-8"

  size {
    rounds   = 6
    clients  = 64
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "optimistic"
    scopes         = 1
    rows_per_scope = 10000
  }
}

# --- Growth: 1,000 against 100,000 rows per scope -----------------------
# 8 clients on 8 scopes, one scope each, so clients never meet: what is
# left is the cost of finding the next number in a larger scope. Source
# 000 claims counter_table stays flat and the MAX-based ones do not.

scenario "rows-counter_table-1k" {
  description = "counter_table, 1,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "counter_table"
    scopes         = 8
    rows_per_scope = 1000
  }
}

scenario "rows-counter_table-100k" {
  description = "counter_table, 100,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"
  against     = "rows-counter_table-1k"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "counter_table"
    scopes         = 8
    rows_per_scope = 100000
  }
}

scenario "rows-advisory_lock-1k" {
  description = "advisory_lock, 1,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 8
    rows_per_scope = 1000
  }
}

scenario "rows-advisory_lock-100k" {
  description = "advisory_lock, 100,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"
  against     = "rows-advisory_lock-1k"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 8
    rows_per_scope = 100000
  }
}

scenario "rows-optimistic-1k" {
  description = "MAX + 1 with a retry on conflict, 1,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "optimistic"
    scopes         = 8
    rows_per_scope = 1000
  }
}

scenario "rows-optimistic-100k" {
  description = "MAX + 1 with a retry on conflict, 100,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"
  against     = "rows-optimistic-1k"

  size {
    rounds   = 6
    clients  = 8
    duration = "1s"
  }
  quick {
    rounds   = 5
    duration = "500ms"
  }

  counter {
    strategy       = "optimistic"
    scopes         = 8
    rows_per_scope = 100000
  }
}
