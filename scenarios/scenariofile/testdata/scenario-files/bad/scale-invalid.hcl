# want: 18:3: Not used by the scale workload
# want: 19:3: Not used by the scale workload
# want: 22:5: Not used by the scale workload
# want: 23:18: Invalid size.task_types
# want: 24:18: Invalid size.limit
# want: 27:18: Incorrect value type
# want: 30:3: Not used by the scale workload
# want: 33:3: Not used by the scale workload
# want: 35:3: Not used by the scale workload
# want: 39:3: Not used by the scale workload
# want: 42:3: Not used by the scale workload
# want: 45:3: Not used by the scale workload
# want: 48:13: Unknown metric
# want: 52:11: Incorrect value type
scenario "scale" {
  workload      = "scale"
  description   = "everything a scale scenario refuses"
  against       = "other"
  handler_delay = "1ms"

  size {
    tasks      = 1000
    task_types = 0
    limit      = 1000001
  }
  quick {
    task_types = "10000"
  }

  types {
    count = 1
  }
  queue "default" {
  }
  task "t000001" {
    queue       = "default"
    concurrency = 10
  }
  explain {
    batch = 10
  }
  counter {
    strategy = "plain"
  }
  storage "tasks" {
    fillfactor = 90
  }
  threshold "throughput" {
    min = 1
  }
  threshold "peak_heap" {
    max = "500MB"
  }
}
