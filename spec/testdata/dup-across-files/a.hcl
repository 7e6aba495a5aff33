queue "default" {
  batch_size = 10
}
