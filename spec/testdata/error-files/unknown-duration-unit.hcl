# want: 4:17: Invalid duration
queue "default" {
  retention {
    completed = "2w"
  }
}
