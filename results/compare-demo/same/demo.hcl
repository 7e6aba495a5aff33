# bench compare demonstration: the same drain, run twice unchanged, then
# with handlers that sleep 1 ms (a real slowdown of the workload).
scenario "drain-small" {
  description = "1 queue, 1 task type, no limit, 10,000 no-op tasks"
  workload    = "drain"

  size {
    tasks      = 10000
    rounds     = 6
    warmup     = 2000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }

  types {
    count = 1
  }
}
