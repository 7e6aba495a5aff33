scenario "plain" {
  workload = "counters"

  size {
    rounds   = 4
    clients  = 8
    duration = "1s"
  }
  quick {
    duration = "250ms"
  }

  counter {
    strategy = "plain"
  }
}

scenario "counter_table" {
  description = "attached counter"
  workload    = "counters"
  against     = "plain"

  size {
    clients = 64
  }
  quick {
    rounds = 4
  }

  counter {
    strategy       = "counter_table"
    scopes         = 1000
    rows_per_scope = 0
  }

  threshold "throughput_ratio" {
    min = 0.7
  }
  threshold "insert_p99" {
    max = "250us"
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

scenario "hot-64-pool-8" {
  workload = "counters"

  size {
    clients     = 64
    connections = 8
  }

  counter {
    strategy       = "counter_table"
    rows_per_scope = 10000
    table          = "hot"
  }
}
