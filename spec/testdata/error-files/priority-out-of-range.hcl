# want: 5:14: Invalid priority
queue "default" {}

task "email:send" {
  priority = 1001
}
