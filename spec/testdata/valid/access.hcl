# Roles that may use the schema, by access level.
queue "default" {}

task "email:send" {}

access {
  enqueue  = ["app_web", "App-Admin"]
  work     = ["app_worker"]
  counters = ["app_web"]
  read     = ["grafana", "app_worker"]
}
