# want: 3:18: Incorrect value type
queue "default" {
  max_retries  = true
}
