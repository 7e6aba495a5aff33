# want: 5:17: Invalid max_retries
queue "default" {}

task "email:send" {
  max_retries = -1
}
