# want: 5:17: Incorrect value type
queue "default" {}

task "email:send" {
  concurrency = "500"
}
