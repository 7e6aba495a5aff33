# Media pipeline: uploads are probed, transcoded and thumbnailed. Transcoding
# is CPU-heavy and runs on a small GPU pool, so it is limited; thumbnails and
# metadata extraction are light and unlimited.

queue "ingest" {
  batch_size     = 200
  max_retries    = 3
  worker_timeout = "1m"
  leader_lease   = "20s"

  backoff {
    initial = "1s"
    max     = "5m"
    factor  = 3
    jitter  = 0.25
  }

  retention {
    completed   = "1d"
    dead_letter = "14d"
  }
}

# Long-running jobs: few per claim, a generous heartbeat window.
queue "transcode" {
  batch_size     = 2
  max_retries    = 2
  worker_timeout = "5m"
  leader_lease   = "30s"

  backoff {
    initial = "30s"
    max     = "1h"
    factor  = 2
    jitter  = 0.2
  }

  retention {
    completed   = "7d"
    dead_letter = "30d"
  }
}

task "media:probe" {
  queue = "ingest"
}

task "media:thumbnail" {
  queue    = "ingest"
  priority = 10
}

task "media:transcode.1080p" {
  queue       = "transcode"
  concurrency = 16 # one per GPU across the pool
}

task "media:transcode.4k" {
  queue       = "transcode"
  concurrency = 4 # a 4k job takes a whole GPU and most of its memory
  priority    = -5
}

task "media:publish" {
  queue       = "ingest"
  concurrency = 101 # CDN API: 101 concurrent uploads (groups of 3 and one of 2)
  max_retries = 10
}

# Episodes are numbered per show, gaplessly, as they are inserted: the third
# episode of the show whose code is "NATGEO" reads NATGEO-3 everywhere in the
# product. The tables are the application's own (see media-pipeline.setup.sql);
# pgseq adds a trigger, a unique index on (show_id, number) and counter rows,
# backfilled from the numbers already there.
counter "episode_number" {
  table  = "media.episodes"
  column = "number"
  scope  = ["show_id"]

  prefix_from {
    table  = "media.shows"
    column = "code"
  }

  lock_timeout = "2s"
}
