# want: 12:3: Not used by the drain workload
# want: 26:17: Unknown task type
# want: 27:17: Invalid explain.batch
# want: 44:17: Saturated type without a limit
# want: 61:17: Saturated type with two limits
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

scenario "explain-two-limits" {
  workload = "explain"

  queue "bench" {
  }
  task "render" {
    queue       = "bench"
    concurrency = 5
    partition {
      concurrency = 2
    }
  }
  explain {
    saturated = "render"
  }
}
