# want: 3:1: Missing configuration
# want: 10:3: Missing task block
scenario "baseline" {
  workload = "drain"
}

scenario "queue-only" {
  workload = "explain"

  queue "bench" {
  }
}
