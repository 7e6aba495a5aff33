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
    tasks  = 100000
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
