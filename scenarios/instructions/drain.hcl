# The drain scenarios of scenarios/drain.hcl at the size bench ab
# --instructions needs: the server runs under valgrind's cachegrind, tens
# of times slower, and its instruction counts vary by up to 1% from one
# run to the next. 20,000 tasks a run make the drain about 75% of what is
# counted (the rest is the schema's setup, the seeding and the server
# processes' starts), and a warm-up of one task only opens the workers'
# connections. Each scenario runs alone (no against: a ratio of times
# means nothing under valgrind), without thresholds (they judge times).
#
#   pgseq bench ab --instructions --base /tmp/pgseq-base scenarios/instructions/

scenario "baseline" {
  description = "1 queue, 1 task type, no limit"
  workload    = "drain"

  size {
    tasks      = 20000
    warmup     = 1
    rounds     = 1
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }

  types {
    count = 1
  }
}

scenario "enabled" {
  description = "100 task types, each limited to 10"
  workload    = "drain"

  size {
    tasks      = 20000
    warmup     = 1
    rounds     = 1
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }

  types {
    count   = 100
    limited = 100
    limit   = 10
  }
}

scenario "mixed" {
  description = "100 task types, 1 of them limited to 10"
  workload    = "drain"

  size {
    tasks      = 20000
    warmup     = 1
    rounds     = 1
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }

  types {
    count   = 100
    limited = 1
    limit   = 10
  }
}

scenario "many" {
  description = "1,000 task types, each limited to 1,000"
  workload    = "drain"

  size {
    tasks      = 20000
    warmup     = 1
    rounds     = 1
    workers    = 1
    pool_size  = 4
    batch_size = 200
  }

  types {
    count   = 1000
    limited = 1000
    limit   = 1000
  }
}
