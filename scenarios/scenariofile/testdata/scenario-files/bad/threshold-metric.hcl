# want: 12:13: Unknown metric
# want: 15:13: Unknown metric
# want: 18:13: Ratio without against
# want: 21:3: Missing metric for threshold
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }

  threshold "througput" {
    min = 20000
  }
  threshold "seq_scans" {
    max = 0
  }
  threshold "throughput_ratio" {
    min = 0.85
  }
  threshold {
    min = 1
  }
}
