# The task uses queue "default", which is not declared.
# want: 5:1: Unknown queue
queue "email" {}

task "email:send" {
  concurrency = 10
}
