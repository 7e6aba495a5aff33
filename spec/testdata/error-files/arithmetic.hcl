# want: 3:16: Literal value required
queue "default" {
  batch_size = 10 * 10
}
