queue "default" {}

# At most 50 renders at once, at most 2 per tenant.
task "render" {
  queue       = "default"
  concurrency = 50
  partition {
    by          = "payload.tenant_id"
    concurrency = 2
  }
}

# One mail at a time per recipient, the key given to enqueue.
task "mail" {
  partition {
    concurrency = 1
  }
}
