# want: 10:10: Duplicate scenario
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
}

scenario "baseline" {
  workload = "drain"

  types {
    count = 2
  }
}
