# want: 3:3: Unsupported argument
queue "default" {
  backoff = { initial = "1s" }
}
