queue "default" {
  batch_size = 20
}

task "email:send" {}
