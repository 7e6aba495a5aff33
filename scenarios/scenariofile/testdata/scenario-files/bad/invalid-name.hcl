# want: 2:10: Invalid scenario name
scenario "High Baseline" {
  workload = "drain"

  types {
    count = 1
  }
}
