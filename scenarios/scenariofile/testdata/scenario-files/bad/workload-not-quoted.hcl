# want: 3:14: Variables not allowed
scenario "baseline" {
  workload = drain

  types {
    count = 1
  }
}
