# want: 3:13: Extraneous label for retention
queue "default" {
  retention "long" {
    completed = "30d"
  }
}
