scenario "baseline" {
  description = "1 queue, 1 task type, no limit"
  workload    = "drain"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1 # on 2 cores one worker's claim and complete streams keep PostgreSQL busy
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count = 1
  }

  # pgseq's target for the unlimited fast path (TargetTasksPerSec).
  threshold "throughput" {
    min = 20000
  }
}

scenario "types100" {
  description = "100 task types, none limited"
  workload    = "drain"
  against     = "baseline"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count = 100
  }
}

scenario "mixed" {
  description = "100 task types, 1 of them limited to 10"
  workload    = "drain"
  against     = "baseline"

  size {
    tasks      = 200000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }
  quick {
    tasks  = 20000
    rounds = 5
    warmup = 5000
  }

  types {
    count   = 100
    limited = 1
    limit   = 10
  }

  # Source 002: "mixed queue (1 with, 99 without): <5% overhead".
  threshold "throughput_ratio" {
    min = 0.95
  }
  # Source 002: slot lock/release under 1 ms.
  threshold "slot_release" {
    max = "1ms"
  }
}

