# Scale scenarios: the sizes and thresholds of the shipped one, and one
# with the workload's defaults (no size at all, no configuration).
scenario "scale-100k" {
  description = "100,000 limited task types"
  workload    = "scale"

  size {
    task_types = 100000
    limit      = 1000
    rounds     = 3
  }
  quick { task_types = 10000 }

  threshold "first_apply" {
    max = "60s"
  }
  threshold "noop_plan" {
    max = 5
  }
  threshold "peak_heap" {
    max = 500000000
  }
}

scenario "defaults" {
  workload = "scale"
}
