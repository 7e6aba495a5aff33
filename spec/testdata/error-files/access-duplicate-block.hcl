# want: 8:1: Duplicate access block
queue "default" {}

access {
  work = ["app_worker"]
}

access {
  read = ["grafana"]
}
