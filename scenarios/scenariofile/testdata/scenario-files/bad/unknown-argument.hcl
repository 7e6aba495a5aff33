# want: 4:3: Unsupported argument
scenario "baseline" {
  workload    = "drain"
  descripton  = "1 queue, 1 task type, no limit"

  types {
    count = 1
  }
}
