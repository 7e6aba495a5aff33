# The cases of pgseq bench counters (scenarios.RunCounters), in run order:
# inserts into tables numbered per scope (project_id), each insert its own
# durable transaction, the cases interleaved round after round.
#
# bench counters sizes every case with its flags (--rounds, --duration):
# the cases give only their clients and, sharing them, connections. Its
# report compares them in per-round ratios, and names the pairs and their
# targets itself (scenarios/counters.go), so the cases have no against
# and no thresholds. These are not the scenarios of ../counters.hcl,
# which pgseq bench run runs: those compare source 000's three strategies,
# optimistic included, each on a table of its own with history in every
# scope.
#
#   pgseq bench counters                        # these cases, with its report
#   pgseq bench run scenarios/bench-counters/   # the same cases, 6 rounds of 1s, without ratios
#
# The file sits in a directory of its own: two of its names are
# counters.hcl's, and pgseq bench run scenarios/ does not read
# subdirectories.

# --- What an attached counter costs: 8 clients over 1,000 scopes --------
# The scopes start empty: with 1,000 of them, two inserts rarely meet on a
# scope, and neither strategy reads the rows already there.

scenario "plain" {
  description = "plain bigserial numbering, 8 clients, 1,000 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy = "plain"
    scopes   = 1000
  }
}

scenario "attached" {
  description = "attached counter (counter_table), 8 clients, 1,000 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy = "counter_table"
    scopes   = 1000
  }
}

# --- One hot scope: 1, 8 and 64 clients -------------------------------
# The hot cases of a strategy share one table. The scope has history
# (10,000 rows): with an empty table, advisory_lock's max() would be
# planned (and the plan cached per connection) as a sequential scan, which
# the run's own inserts then make O(rows).

scenario "hot-1" {
  description = "attached counter_table, one hot scope, 1 client"
  workload    = "counters"

  size {
    clients = 1
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot"
  }
}

scenario "hot-8" {
  description = "attached counter_table, one hot scope, 8 clients"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot"
  }
}

scenario "hot-64" {
  description = "attached counter_table, one hot scope, 64 clients"
  workload    = "counters"

  size {
    clients = 64
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot"
  }
}

# An application's pool of 8 connections in front of 64 clients: the queue
# for the scope forms in the application.
scenario "hot-64-pool-8" {
  description = "attached counter_table, one hot scope, 64 clients sharing 8 connections"
  workload    = "counters"

  size {
    clients     = 64
    connections = 8
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot"
  }
}

scenario "hot-advisory_lock-8" {
  description = "attached advisory_lock, one hot scope, 8 clients"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot_adv"
  }
}

scenario "hot-advisory_lock-64" {
  description = "attached advisory_lock, one hot scope, 64 clients"
  workload    = "counters"

  size {
    clients = 64
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 1
    rows_per_scope = 10000
    table          = "hot_adv"
  }
}

# --- Rows per scope: 1,000 against 100,000 ----------------------------
# 8 clients on 8 scopes, one scope each, so clients never meet: what is
# left is the cost of finding the next number in a larger scope.

scenario "counter_table-1k" {
  description = "counter_table, 1,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "counter_table"
    scopes         = 8
    rows_per_scope = 1000
  }
}

scenario "advisory_lock-1k" {
  description = "advisory_lock, 1,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 8
    rows_per_scope = 1000
  }
}

scenario "counter_table-100k" {
  description = "counter_table, 100,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "counter_table"
    scopes         = 8
    rows_per_scope = 100000
  }
}

scenario "advisory_lock-100k" {
  description = "advisory_lock, 100,000 rows per scope, 8 clients on 8 scopes"
  workload    = "counters"

  size {
    clients = 8
  }

  counter {
    strategy       = "advisory_lock"
    scopes         = 8
    rows_per_scope = 100000
  }
}
