# Settings left out, or set to null, keep their defaults; a partial backoff
# block keeps the defaults of the arguments it leaves out.
queue "default" {
  batch_size = 500
  backoff {
    factor = 3
  }
  leader_lease = null
}

queue "bulk-import_2" {
  retention {
    dead_letter = "1d12h"
  }
}

task "import:csv" {
  queue       = "bulk-import_2"
  concurrency = 1000000
}

task "ping" {
  concurrency = null
}
