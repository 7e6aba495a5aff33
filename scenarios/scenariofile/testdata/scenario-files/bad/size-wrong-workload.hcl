# want: 9:5: Not used by the drain workload
# want: 10:5: Not used by the drain workload
# want: 21:5: Not used by the counters workload
scenario "baseline" {
  workload = "drain"

  size {
    tasks    = 1000
    clients  = 8
    duration = "1s"
  }
  types {
    count = 1
  }
}

scenario "plain" {
  workload = "counters"

  quick {
    tasks = 1000
  }
  counter {
    strategy = "plain"
  }
}
