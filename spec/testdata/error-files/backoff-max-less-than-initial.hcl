# want: 5:15: Backoff max less than initial
queue "default" {
  backoff {
    initial = "5m"
    max     = "1m"
  }
}
