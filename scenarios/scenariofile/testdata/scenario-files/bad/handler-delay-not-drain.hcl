# want: 4:3: Not used by the counters workload
scenario "plain" {
  workload      = "counters"
  handler_delay = "20ms"

  counter {
    strategy = "plain"
  }
}
