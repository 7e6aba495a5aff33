# want: 4:3: Missing required argument
queue "default" {}
task "render" {
  partition {
    by = "payload.tenant_id"
  }
}
