# Two arguments on one line.
# want: 4:20: Missing newline after argument
queue "default" {
  batch_size = 100 max_retries = 5
}
