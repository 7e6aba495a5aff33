# Soak scenarios: inline configuration with a held snapshot and storage
# parameters, and generated types with the defaults.
scenario "churn" {
  description   = "retention on"
  workload      = "soak"
  handler_delay = "1ms"
  hold_snapshot = true

  size {
    duration  = "30m"
    rate      = 1000
    workers   = 2
    pool_size = 4
  }
  quick { duration = "1m" }

  queue "soak" {
    batch_size   = 100
    leader_lease = "3s"
    retention {
      completed = "10s"
    }
  }
  task "email" {
    queue = "soak"
  }
  task "render" {
    queue       = "soak"
    concurrency = 50
  }

  storage "tasks" {
    fillfactor                     = 90
    autovacuum_vacuum_scale_factor = 0.01
    autovacuum_enabled             = true
  }
  storage "concurrency_slots" {
    autovacuum_vacuum_cost_delay = 0
  }

  threshold "claim_p99_growth" {
    max = 2
  }
  threshold "claim_p99_last" {
    max = "50ms"
  }
  threshold "table_size_last" {
    max = 100000000
  }
}

scenario "generated" {
  workload = "soak"

  size {
    rate       = 50
    batch_size = 20
  }

  types {
    count   = 2
    limited = 1
    limit   = 5
  }
}
