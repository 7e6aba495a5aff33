# want: 3:16: Invalid batch_size
queue "default" {
  batch_size = 0
}
