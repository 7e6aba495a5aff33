# A queue block that is never closed.
# want: 3:17: Unclosed configuration block
queue "default" {
  batch_size = 100
