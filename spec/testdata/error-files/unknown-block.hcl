# want: 2:1: Unsupported block type
queues "default" {
  batch_size = 100
}
