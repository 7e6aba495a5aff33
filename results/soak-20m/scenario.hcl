# soak-retention of scenarios/soak.hcl at 20 minutes instead of 30, so that
# its first and last 10-minute windows are compared (run on its own:
# pgseq bench run --out results/soak-20m results/soak-20m/scenario.hcl).
scenario "soak-retention" {
  description = "steady churn at 1,000 tasks/s, completed tasks purged after 10 s"
  workload    = "soak"

  size {
    duration  = "20m"
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
