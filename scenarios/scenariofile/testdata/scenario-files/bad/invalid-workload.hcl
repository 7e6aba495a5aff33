# want: 3:14: Invalid workload
scenario "baseline" {
  workload = "drian"

  types {
    count = 1
  }
}
