# want: 18:11: Incorrect value type
# want: 21:11: Invalid duration
# want: 25:11: Threshold max below min
# want: 27:3: Missing bound
# want: 30:11: Invalid threshold
# want: 33:11: Incorrect value type
# want: 35:13: Duplicate threshold
# want: 38:13: Duplicate threshold
# want: 40:5: Unsupported argument
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }

  threshold "throughput" {
    min = "20000"
  }
  threshold "claim_p99" {
    max = "1 ms"
  }
  threshold "complete_p99" {
    min = "2ms"
    max = "1ms"
  }
  threshold "running_max" {
  }
  threshold "ideal_share" {
    min = -0.5
  }
  threshold "claim_p50" {
    max = true
  }
  threshold "claim_p99" {
    max = 0.001
  }
  threshold "throughput" {
    min = 100
    mni = 200
  }
}
