# want: 4:3: Duplicate argument
scenario "baseline" {
  workload = "drain"
  workload = "explain"

  types {
    count = 1
  }
}
