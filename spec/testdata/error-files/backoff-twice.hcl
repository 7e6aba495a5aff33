# want: 6:3: Duplicate backoff block
queue "default" {
  backoff {
    initial = "1s"
  }
  backoff {
    max = "1m"
  }
}
