# want: 13:3: Not used by the drain workload
# want: 18:1: Missing counter block
# want: 26:22: Invalid strategy
# want: 27:22: Invalid counter.scopes
# want: 28:22: Invalid counter.rows_per_scope
# want: 35:3: Missing strategy
scenario "baseline" {
  workload = "drain"

  types {
    count = 1
  }
  counter {
    strategy = "plain"
  }
}

scenario "missing-block" {
  workload = "counters"
}

scenario "bad-strategy" {
  workload = "counters"

  counter {
    strategy       = "counter-table"
    scopes         = 0
    rows_per_scope = -1
  }
}

scenario "missing-strategy" {
  workload = "counters"

  counter {
    scopes = 8
  }
}
