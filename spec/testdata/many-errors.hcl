# Several mistakes at once: every one is reported.
queue "default" {
  batch_size = "100"
  backoff {
    initial = "5m"
    max     = "1m"
  }
  retention {
    completed = "7x"
  }
  workers = 4
}

task "email:send" {
  queue       = "defualt"
  concurrency = 0
}

task "media:render.4k" {
  concurrency = 2.5
  priority    = var.priority
}
