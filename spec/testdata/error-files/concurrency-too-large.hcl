# want: 5:17: Invalid concurrency
queue "default" {}

task "email:send" {
  concurrency = 1000001
}
