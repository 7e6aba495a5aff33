# want: 3:3: Unsupported argument
queue "default" {
  batchsize = 100
}
