# want: 3:3: Unsupported block type
queue "default" {
  retry {
    initial = "1s"
  }
}
