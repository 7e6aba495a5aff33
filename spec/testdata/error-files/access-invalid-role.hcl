# want: 8:14: Invalid role name
# want: 8:25: Invalid role name
# want: 8:39: Invalid role name
# want: 9:14: Incorrect value type
queue "default" {}

access {
  enqueue = ["app web", "pg_monitor", "PUBLIC"]
  read    = [42]
}
