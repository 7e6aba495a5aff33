# want: 12:15: Invalid types.limited
# want: 14:15: Invalid queue name
# want: 23:15: Missing limit
# want: 31:13: Invalid types.count
# want: 32:13: Limit without limited types
# want: 39:3: Missing count
scenario "enabled" {
  workload = "drain"

  types {
    count   = 100
    limited = 101
    limit   = 10
    queue   = "Bench"
  }
}

scenario "mixed" {
  workload = "drain"

  types {
    count   = 100
    limited = 1
  }
}

scenario "many" {
  workload = "drain"

  types {
    count = 0
    limit = 10
  }
}

scenario "missing-count" {
  workload = "drain"

  types {
  }
}
