# want: 4:14: Invalid backoff.jitter
queue "default" {
  backoff {
    jitter = 2
  }
}
