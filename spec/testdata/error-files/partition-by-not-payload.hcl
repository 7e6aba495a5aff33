# want: 5:19: Invalid partition field
queue "default" {}
task "render" {
  partition {
    by          = "tenant_id"
    concurrency = 2
  }
}
