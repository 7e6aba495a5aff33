# want: 4:3: Duplicate argument
queue "default" {
  batch_size = 100
  batch_size = 200
}
