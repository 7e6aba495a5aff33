# A reference and a member measured against it, with generated types.
scenario "baseline" {
  description = "reference"
  workload    = "drain"

  size {
    tasks      = 1000
    rounds     = 3
    warmup     = 100
    workers    = 2
    pool_size  = 4
    batch_size = 50
  }
  quick { tasks = 100 }

  types { count = 1 }

  threshold "throughput" {
    min = 20000
  }
  threshold "claim_p99" {
    max = "1ms"
  }
  threshold "complete_p99" {
    min = 0.0001 # seconds
    max = "2.5ms"
  }
}

scenario "enabled" {
  workload      = "drain"
  against       = "baseline"
  handler_delay = "1.5ms"

  size {
    rounds = 3
  }

  types {
    count   = 3
    limited = 2
    limit   = 10
    queue   = "limited"
  }

  threshold "throughput_ratio" {
    min = 0.85
    max = 1.5
  }
}
