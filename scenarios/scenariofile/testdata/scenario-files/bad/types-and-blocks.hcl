# want: 5:3: Conflicting configuration
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
  queue "bench" {
  }
  task "noop" {
    queue = "bench"
  }
}
