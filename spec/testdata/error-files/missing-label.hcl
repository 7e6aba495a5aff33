# want: 2:1: Missing name for queue
queue {
  batch_size = 100
}
