# want: 3:3: Unsupported block type
queue "default" {
  batch_size {
  }
}
