# want: 4:14: Invalid backoff.factor
queue "default" {
  backoff {
    factor = 1e308
  }
}
