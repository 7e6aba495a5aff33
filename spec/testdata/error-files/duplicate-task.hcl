# want: 8:6: Duplicate task
queue "default" {}

task "email:send" {
  concurrency = 10
}

task "email:send" {
  concurrency = 20
}
