# want: 8:5: Not used by the drain workload
# want: 9:5: Not used by the drain workload
# want: 25:5: Not used by the scale workload
scenario "baseline" {
  workload = "drain"

  size {
    task_types = 1000
    limit      = 10
  }
  types {
    count = 1
  }
}

# A scale scenario's size takes task_types, limit and rounds; the other
# workloads' arguments are refused, naming them.
scenario "scale" {
  workload = "scale"

  size {
    task_types = 100
    limit      = 10
    rounds     = 2
    workers    = 4
  }
}
