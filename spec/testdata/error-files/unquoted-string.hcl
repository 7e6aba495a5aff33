# want: 5:11: Variables not allowed
queue "default" {}

task "email:send" {
  queue = default
}
