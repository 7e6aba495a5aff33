# want: 4:14: Scenario against itself
scenario "enabled" {
  workload = "drain"
  against  = "enabled"

  types {
    count = 1
  }
}
