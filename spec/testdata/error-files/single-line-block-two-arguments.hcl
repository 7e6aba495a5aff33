# A one-line block holds a single argument; two need a line each.
# want: 4:28: Invalid single-argument block definition
queue "default" {
  backoff { initial = "1s" max = "10m" }
}
