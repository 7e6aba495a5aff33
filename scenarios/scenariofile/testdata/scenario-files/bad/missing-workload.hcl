# want: 2:1: Missing workload
scenario "baseline" {
  description = "no workload"

  types {
    count = 1
  }
}
