# want: 3:20: Invalid worker_timeout
queue "default" {
  worker_timeout = "500ms"
}
