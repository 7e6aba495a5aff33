# want: 3:16: Function calls not allowed
queue "default" {
  batch_size = max(10, 20)
}
