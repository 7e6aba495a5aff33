# Notification service: transactional email, SMS and push, fanned out from
# application events. The email and SMS providers rate-limit us, so their task
# types carry global concurrency limits that hold across every worker pod.

queue "default" {
  batch_size     = 100 # tasks claimed per round trip
  max_retries    = 5
  worker_timeout = "30s" # a worker silent this long is dead; its tasks return to pending
  leader_lease   = "15s"

  backoff {
    initial = "2s"
    max     = "10m"
    factor  = 2
    jitter  = 0.2
  }

  retention {
    completed   = "3d"
    dead_letter = "30d"
  }
}

# Receipts and password resets must never wait behind newsletters.
queue "urgent" {
  batch_size     = 20
  max_retries    = 8
  worker_timeout = "20s"
  leader_lease   = "15s"

  backoff {
    initial = "500ms"
    max     = "1m"
    factor  = 2
    jitter  = 0.1
  }
}

task "email:send" {
  queue       = "default"
  concurrency = 500 # the provider allows 500 concurrent connections
  max_retries = 6
}

task "email:password_reset" {
  queue       = "urgent"
  concurrency = 50
  priority    = 100
}

task "sms:send" {
  queue       = "urgent"
  concurrency = 20 # SMS gateway contract: 20 in flight
  priority    = 50
}

# Push notifications go to a fan-out service that scales with us: no limit,
# so claims take the fast path.
task "push:send" {
  queue = "default"
}

task "digest:weekly" {
  queue       = "default"
  concurrency = 4 # heavy queries against the reporting replica
  priority    = -10
  max_retries = 1
}
