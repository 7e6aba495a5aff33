# want: 12:14: Reference of another workload
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
}

scenario "plain" {
  workload = "counters"
  against  = "baseline"

  counter {
    strategy = "plain"
  }
}
