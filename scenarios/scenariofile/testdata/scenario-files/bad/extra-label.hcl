# want: 2:21: Extraneous label for scenario
scenario "baseline" "drain" {
  workload = "drain"

  types {
    count = 1
  }
}
