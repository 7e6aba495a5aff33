# Inline configuration, null arguments, explain blocks.
scenario "saturated" {
  description = null
  workload    = "explain"
  against     = null

  size {
    tasks  = 1000000
    rounds = null
  }
  quick {
    tasks = 100000
  }

  queue "bench" {
    batch_size = 100
  }
  task "blocked" {
    queue       = "bench"
    concurrency = 5
  }
  task "free" {
    queue    = "bench"
    priority = 1
  }

  explain {
    saturated = "blocked"
    batch     = 50
  }

  threshold "seq_scans" {
    max = 0
  }
  threshold "claim_time" {
    max = 0.25
  }
}

scenario "one-limited" {
  workload = "explain"

  size {
    batch_size = 200
  }

  types {
    count   = 100
    limited = 1
    limit   = 10
  }
}

# A member whose rounds are null: left out, so nothing to compare.
scenario "member" {
  workload = "explain"
  against  = "one-limited"

  size {
    rounds = null
  }
  quick {
    rounds = null
  }

  types {
    count = 1
  }
}
