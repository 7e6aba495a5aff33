# One configuration split over several files: the queues...
queue "default" {}

queue "email" {
  batch_size = 50
}
