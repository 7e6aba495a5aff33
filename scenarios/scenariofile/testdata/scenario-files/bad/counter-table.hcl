# want: 9:16: Invalid table name
# want: 17:16: Incorrect value type
# want: 35:22: Shared table declared differently
# want: 44:22: Shared table declared differently
scenario "bad-name" {
  workload = "counters"
  counter {
    strategy = "counter_table"
    table    = "Hot Table"
  }
}

scenario "not-a-string" {
  workload = "counters"
  counter {
    strategy = "counter_table"
    table    = 1
  }
}

scenario "hot-8" {
  workload = "counters"
  counter {
    strategy       = "counter_table"
    rows_per_scope = 10000
    table          = "hot"
  }
}

scenario "hot-other-rows" {
  workload = "counters"
  counter {
    strategy       = "counter_table"
    rows_per_scope = 1000
    table          = "hot"
  }
}

scenario "hot-other-strategy" {
  workload = "counters"
  counter {
    strategy       = "advisory_lock"
    rows_per_scope = 10000
    table          = "hot"
  }
}
