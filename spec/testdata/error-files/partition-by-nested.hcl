# want: 5:19: Invalid partition field
queue "default" {}
task "render" {
  partition {
    by          = "payload.tenant.id"
    concurrency = 2
  }
}
