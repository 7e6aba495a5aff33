# want: 5:17: Variables not allowed
queue "default" {}

task "email:send" {
  concurrency = var.email_concurrency
}
