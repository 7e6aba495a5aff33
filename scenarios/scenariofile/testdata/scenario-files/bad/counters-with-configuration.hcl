# want: 6:3: Not used by the counters workload
# want: 9:3: Not used by the counters workload
scenario "plain" {
  workload = "counters"

  types {
    count = 1
  }
  queue "bench" {
  }
  counter {
    strategy = "plain"
  }
}
