# Slow handlers, limits that do not bind: 100 types limited to 100, 16
# handlers of 5 ms: the workers ask for reservations (handlers slower than
# completions), and no lane ever holds a task.
scenario "slow-unbound" {
  description   = "100 task types limited to 100, handlers sleep 5ms"
  workload      = "drain"
  handler_delay = "5ms"
  size {
    tasks     = 6000
    rounds    = 4
    warmup    = 500
    workers   = 4
    pool_size = 4
  }
  types {
    count   = 100
    limited = 100
    limit   = 100
  }
}
