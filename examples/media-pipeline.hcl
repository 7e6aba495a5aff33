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
