# want: 3:20: Invalid duration
queue "default" {
  worker_timeout = "soon"
}
