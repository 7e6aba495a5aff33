# high-baseline and high of scenarios/drain.hcl with 1, 2 and 4 workers
# (results/split-full-batch/): how the number of workers holding a binding
# limit's units moves the drain.

scenario "hb1" {
  description = "1 queue, 1 task type, no limit; 1 worker, batches of 500"
  workload    = "drain"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count = 1
  }
}

# One type limited to 500 (source 002 used it to exercise slot groups):
# eight workers holding batches of 500 make the limit bind now and then.
scenario "h1" {
  description = "1 task type limited to 500; 1 worker, batches of 500"
  workload    = "drain"
  against     = "hb1"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 1
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count   = 1
    limited = 1
    limit   = 500
  }

  # Source 002's bar for limited types ("<15% throughput decrease").
  threshold "throughput_ratio" {
    min = 0.85
  }
}


scenario "hb2" {
  description = "1 queue, 1 task type, no limit; 2 workers, batches of 500"
  workload    = "drain"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 2
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count = 1
  }
}

# One type limited to 500 (source 002 used it to exercise slot groups):
# eight workers holding batches of 500 make the limit bind now and then.
scenario "h2" {
  description = "1 task type limited to 500; 2 workers, batches of 500"
  workload    = "drain"
  against     = "hb2"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 2
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count   = 1
    limited = 1
    limit   = 500
  }

  # Source 002's bar for limited types ("<15% throughput decrease").
  threshold "throughput_ratio" {
    min = 0.85
  }
}


scenario "hb4" {
  description = "1 queue, 1 task type, no limit; 4 workers, batches of 500"
  workload    = "drain"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 4
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count = 1
  }
}

# One type limited to 500 (source 002 used it to exercise slot groups):
# eight workers holding batches of 500 make the limit bind now and then.
scenario "h4" {
  description = "1 task type limited to 500; 4 workers, batches of 500"
  workload    = "drain"
  against     = "hb4"

  size {
    tasks      = 100000
    rounds     = 5
    warmup     = 20000
    workers    = 4
    pool_size  = 4
    batch_size = 500
  }
  quick {
    tasks  = 20000
    warmup = 5000
  }

  types {
    count   = 1
    limited = 1
    limit   = 500
  }

  # Source 002's bar for limited types ("<15% throughput decrease").
  threshold "throughput_ratio" {
    min = 0.85
  }
}

