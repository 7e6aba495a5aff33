# want: 4:6: Invalid task name
queue "default" {}

task "email::send" {}
