# want: 6:3: Not used by the drain workload
# want: 9:3: Not used by the drain workload
scenario "drain" {
  workload      = "drain"
  types { count = 1 }
  hold_snapshot = true

  # Storage parameters are for soak scenarios only.
  storage "tasks" {
    fillfactor = 90
  }
}

# want: 16:1: Missing configuration
# want: 20:5: Not used by the soak workload
scenario "bare" {
  workload = "soak"

  quick {
    rounds = 2
  }
}
