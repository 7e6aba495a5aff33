# want: 12:14: Unknown scenario
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
}

scenario "enabled" {
  workload = "drain"
  against  = "basline"

  types {
    count = 1
  }
}
