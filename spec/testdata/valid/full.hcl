# Every setting written out.
queue "default" {
  batch_size  = 100
  max_retries = 3
  backoff {
    initial = "1s"
    max     = "10m"
    factor  = 2
    jitter  = 0.2
  }
  worker_timeout = "30s"
  leader_lease   = "15s"
  retention {
    completed   = "7d"
    dead_letter = "30d"
  }
}

queue "media" {
  batch_size  = 10
  max_retries = 0
  backoff {
    initial = "250ms"
    max     = "1h30m"
    factor  = 1.5
    jitter  = 0
  }
  worker_timeout = "5m"
  leader_lease   = "1m"
  retention {
    completed   = "12h"
    dead_letter = "90d"
  }
}

task "email:send" {
  queue       = "default"
  concurrency = 500
  max_retries = 5
  priority    = 0
}

task "media:render.4k" {
  queue       = "media"
  concurrency = 4
  priority    = -10
}

task "Reports_daily" {
  max_retries = 0
  priority    = 1000
}
