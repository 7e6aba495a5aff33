# want: 10:5: batch_size with inline configuration
# want: 13:18: Invalid batch_size
# want: 16:19: Unknown queue
# want: 17:19: Invalid concurrency
# want: 19:3: Unknown queue
scenario "saturated" {
  workload = "explain"

  size {
    batch_size = 200
  }
  queue "bench" {
    batch_size = 0
  }
  task "blocked" {
    queue       = "bnech"
    concurrency = 0
  }
  task "free" {
  }
}
