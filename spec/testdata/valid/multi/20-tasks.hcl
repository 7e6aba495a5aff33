# ...and the task types, which may name queues declared in other files.
task "email:send" {
  queue       = "email"
  concurrency = 20
}

task "email:digest" {
  queue = "email"
}

task "cleanup" {}
