# want: 4:1: Unsupported argument
# want: 6:1: Unsupported block type
# want: 10:1: Unsupported block type
workload = "drain"

queue "bench" {
  batch_size = 200
}

scenarios "baseline" {
}
