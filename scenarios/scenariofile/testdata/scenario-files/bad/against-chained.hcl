# want: 21:14: Reference measured against another
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
}

scenario "enabled" {
  workload = "drain"
  against  = "baseline"

  types {
    count = 1
  }
}

scenario "mixed" {
  workload = "drain"
  against  = "enabled"

  types {
    count = 1
  }
}
