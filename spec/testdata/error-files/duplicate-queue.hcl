# want: 7:7: Duplicate queue
queue "default" {
  batch_size = 100
}

# The same name again.
queue "default" {
  batch_size = 50
}
