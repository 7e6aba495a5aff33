# want: 13:3: Not used by the soak workload
# want: 14:19: Incorrect value type
# want: 17:5: Not used by the soak workload
# want: 18:13: Invalid size.rate
# want: 28:11: Unknown table
# want: 32:36: Invalid fillfactor
# want: 33:36: Invalid autovacuum_vacuum_cost_limit
# want: 34:5: Unsupported argument
# want: 36:11: Duplicate storage block
# want: 39:13: Unknown metric
scenario "churn" {
  workload      = "soak"
  against       = "other"
  hold_snapshot = "yes"

  size {
    tasks = 1000
    rate  = 0
  }

  queue "soak" {
    batch_size = 100
  }
  task "email" {
    queue = "soak"
  }

  storage "task" {
    fillfactor = 90
  }
  storage "tasks" {
    fillfactor                   = 5
    autovacuum_vacuum_cost_limit = 1.5
    vacuum_truncate              = false
  }
  storage "tasks" {
    fillfactor = 90
  }
  threshold "claim_p99" {
    max = "1ms"
  }
}
