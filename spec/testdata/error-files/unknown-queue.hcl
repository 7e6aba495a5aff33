# want: 5:11: Unknown queue
queue "default" {}

task "email:send" {
  queue = "defualt"
}
