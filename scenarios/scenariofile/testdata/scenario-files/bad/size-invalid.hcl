# want: 10:18: Invalid size.tasks
# want: 11:18: Invalid size.rounds
# want: 12:18: Incorrect value type
# want: 13:18: Invalid size.workers
# want: 14:18: Invalid size.batch_size
scenario "baseline" {
  workload = "drain"

  size {
    tasks      = 0
    rounds     = 2.5
    warmup     = "20000"
    workers    = -1
    batch_size = 10001
  }
  types {
    count = 1
  }
}
