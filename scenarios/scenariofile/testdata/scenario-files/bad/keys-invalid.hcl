# want: 13:3: Missing count
# want: 25:17: Invalid keys.hot_share
# want: 35:13: Invalid keys.count
# want: 39:1: Missing keys block
# want: 55:19: Invalid measure_until
# want: 66:3: Not used by the explain workload
# want: 73:19: Measured over another share of the drain
scenario "no-count" {
  workload = "drain"
  types {
    count = 1
  }
  keys {
    hot_share = 0.3
  }
}

scenario "hot-below-uniform" {
  workload = "drain"
  types {
    count = 1
  }
  keys {
    count     = 10
    hot_share = 0.05
  }
}

scenario "too-many" {
  workload = "drain"
  types {
    count = 1
  }
  keys {
    count = 20000000
  }
}

scenario "partitioned-without-keys" {
  workload = "drain"
  queue "bench" {}
  task "noop" {
    queue = "bench"
    partition {
      concurrency = 2
    }
  }
}

scenario "window" {
  workload = "drain"
  types {
    count = 1
  }
  measure_until = 1.5
}

scenario "explain-keys" {
  workload = "explain"
  types {
    count = 1
  }
  size {
    tasks = 10
  }
  keys {
    count = 10
  }
}

scenario "window-other" {
  workload      = "drain"
  against       = "reference"
  measure_until = 0.3
  types {
    count = 1
  }
}

scenario "reference" {
  workload = "drain"
  types {
    count = 1
  }
}
