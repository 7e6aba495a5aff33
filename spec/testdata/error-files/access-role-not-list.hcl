# want: 5:15: Incorrect value type
queue "default" {}

access {
  work      = "app_worker"
  read      = ["grafana"]
}
