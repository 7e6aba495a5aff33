# want: 6:19: Invalid duration
# want: 17:16: Invalid size.duration
# want: 20:16: Incorrect value type
scenario "binding" {
  workload      = "drain"
  handler_delay = "20"

  types {
    count = 1
  }
}

scenario "plain" {
  workload = "counters"

  size {
    duration = "-1s"
  }
  quick {
    duration = 1
  }
  counter {
    strategy = "plain"
  }
}
