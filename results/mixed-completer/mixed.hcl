# baseline and mixed of scenarios/drain.hcl at 100,000 tasks (the completer change for mixed)

scenario "baseline" {
  description = "1 queue, 1 task type, no limit"
  workload    = "drain"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 10000
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
}

scenario "mixed" {
  description = "100 task types, 1 of them limited to 10"
  workload    = "drain"
  against     = "baseline"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 10000
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
  # Source 002: slot lock/release under 1 ms.
}
