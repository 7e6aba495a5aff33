# want: 11:3: Not used by the drain workload
# want: 25:17: Unknown task type
# want: 26:17: Invalid explain.batch
# want: 43:17: Saturated type without a limit
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
  explain {
    batch = 100
  }
}

scenario "explain-unknown" {
  workload = "explain"

  types {
    count   = 100
    limited = 1
    limit   = 10
  }
  explain {
    saturated = "noop.001"
    batch     = 0
  }
}

scenario "explain-unlimited" {
  workload = "explain"

  queue "bench" {
  }
  task "blocked" {
    queue       = "bench"
    concurrency = 5
  }
  task "free" {
    queue = "bench"
  }
  explain {
    saturated = "free"
  }
}
