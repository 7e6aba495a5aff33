# want: 2:1: Unsupported argument
batch_size = 100

queue "default" {}
