# want: 4:19: Extraneous label for task
queue "default" {}

task "email:send" "fast" {
  concurrency = 10
}
