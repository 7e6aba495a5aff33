# want: 10:19: Invalid size.connections
# want: 21:19: More connections than clients
# want: 31:19: More connections than clients
# want: 45:15: More connections than clients
# want: 59:19: More connections than clients
# want: 69:5: Not used by the drain workload
scenario "zero" {
  workload = "counters"
  size {
    connections = 0
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "more-than-clients" {
  workload = "counters"
  size {
    clients     = 4
    connections = 8
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "more-than-the-default" {
  workload = "counters"
  size {
    connections = 16
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "quick-fewer-clients" {
  workload = "counters"
  size {
    clients     = 64
    connections = 8
  }
  quick {
    clients = 4
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "quick-more-connections" {
  workload = "counters"
  size {
    clients     = 64
    connections = 8
  }
  quick {
    connections = 128
  }
  counter {
    strategy = "counter_table"
  }
}

scenario "drain" {
  workload = "drain"
  size {
    connections = 8
  }
  types {
    count = 1
  }
}
