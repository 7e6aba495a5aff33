# want: 5:14: Variables not allowed
queue "default" {}

task "email:send" {
  queue = "${local.queue}"
}
