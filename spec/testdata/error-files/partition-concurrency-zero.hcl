# want: 5:29: Invalid partition.concurrency
queue "default" {}
task "render" {
  concurrency = 50
  partition { concurrency = 0 }
}
