# want: 5:25: Duplicate role
queue "default" {}

access {
  work = ["app_worker", "app_worker"]
  read = ["app_worker"]
}
