# Soak scenarios: what a long churn does to the claim. A producer enqueues
# at a steady rate below what the workers drain, the workers complete
# everything, and the leader's maintenance purges completed tasks after
# their (short) retention: every task leaves three dead tuples in tasks (the
# claim's update, the completion's, the purge's delete) and each task of a
# limited type two updates of a concurrency_slots row. Vacuum has to keep
# up, or the claim's index scan walks ever more dead entries. Every
# interval (duration/30) the run samples claim p50/p99, tasks completed per
# second, dead tuples and size of both tables and autovacuum counts; the
# thresholds compare the claim's latency in the last window (last tenth, or
# the last 10 minutes of a run of 20 or more) with the first.
#
# The configuration is the same in both: four task types in turn, two of
# them limited; a leader_lease of 3 s, so the leader's maintenance runs
# every second; completed tasks kept 10 s.

# Retention on, nothing in the way of vacuum: the claim must stay flat.
scenario "soak-retention" {
  description = "steady churn at 1,000 tasks/s, completed tasks purged after 10 s"
  workload    = "soak"

  size {
    duration  = "30m"
    rate      = 1000
    workers   = 2
    pool_size = 4
  }
  quick {
    duration = "1m"
  }

  queue "soak" {
    batch_size   = 100
    leader_lease = "3s"
    retention {
      completed = "10s"
    }
  }
  task "email" {
    queue = "soak"
  }
  task "webhook" {
    queue = "soak"
  }
  task "render" {
    queue       = "soak"
    concurrency = 50
  }
  task "report" {
    queue       = "soak"
    concurrency = 10
  }

  # The claim at the end at most three times as slow as at the start, on
  # the median: a claim walking ever more dead index entries slows every
  # claim (12-33x with a held snapshot in 1-minute runs), while the p99 of
  # a minute is mostly the commit's WAL flush and the host's load (0.4-3.1x
  # across healthy 1-minute runs), too noisy to gate a quick run on. The
  # p99's growth is reported beside it; judge it on a full-size run, whose
  # 10-minute windows hold some 30,000 claims each.
  threshold "claim_p50_growth" {
    max = 3
  }
  # The leader's maintenance ran: completed tasks were purged.
  threshold "tasks_purged" {
    min = 1
  }
}

# The same with a session holding a REPEATABLE READ snapshot for the whole
# run (a forgotten transaction, a long report, a replica with
# hot_standby_feedback): vacuum can remove nothing, so dead tuples and the
# tables grow without bound and the claim slows down with them. No bound
# on the growth: this scenario shows what operators must watch for, it is
# not a target pgseq can meet (see docs/benchmarks.md, "What operators should watch").
scenario "soak-held-snapshot" {
  description   = "the same churn while another session holds a snapshot"
  workload      = "soak"
  hold_snapshot = true

  size {
    duration  = "30m"
    rate      = 1000
    workers   = 2
    pool_size = 4
  }
  quick {
    duration = "1m"
  }

  queue "soak" {
    batch_size   = 100
    leader_lease = "3s"
    retention {
      completed = "10s"
    }
  }
  task "email" {
    queue = "soak"
  }
  task "webhook" {
    queue = "soak"
  }
  task "render" {
    queue       = "soak"
    concurrency = 50
  }
  task "report" {
    queue       = "soak"
    concurrency = 10
  }

  threshold "tasks_purged" {
    min = 1
  }
}
