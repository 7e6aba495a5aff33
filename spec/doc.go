// Package spec reads pgseq's configuration language: HCL files that declare
// the desired state of a pgseq schema. It parses and validates them into a
// Config whose State is a catalog.State, and reports every problem at once
// as hcl.Diagnostics that point at the offending source. It does no I/O
// beyond reading the files it is given and never touches a database.
//
// # The language
//
// A configuration is one or more .hcl files read as one; the order of
// blocks and files does not matter. Each top-level block declares one
// object, named by its label:
//
//	queue "default" {
//	  batch_size     = 100     # tasks claimed per round trip, 1..10000
//	  max_retries    = 3       # retries before dead-lettering, 0..1000
//	  backoff {                # delay before retry n: initial·factor^(n-1), capped at max
//	    initial = "1s"
//	    max     = "10m"        # at least initial
//	    factor  = 2            # at least 1, may be fractional
//	    jitter  = 0.2          # random spread, 0..1
//	  }
//	  worker_timeout = "30s"   # heartbeat age that declares a worker dead, at least 1s
//	  leader_lease   = "15s"   # at least 1s
//	  retention {              # how long finished tasks are kept
//	    completed   = "7d"
//	    dead_letter = "30d"
//	  }
//	}
//
//	task "email:send" {
//	  queue       = "default"  # default "default", which must be declared
//	  concurrency = 500        # global limit on running tasks, 1..1000000; absent = unlimited
//	  max_retries = 5          # overrides the queue's, 0..1000
//	  priority    = 0          # -1000..1000, higher runs first
//	}
//
// Every argument and nested block is optional; what is left out takes the
// default shown (catalog.DefaultQueue), and an argument set to null counts
// as left out. Durations are strings of whole numbers with units d, h, m, s
// and ms ("90s", "1h30m"). Values are literals: references, function calls
// and operators are rejected.
//
// Queue names match ^[a-z][a-z0-9_-]{0,62}$. Task names match
// ^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$ and are at most 128 bytes
// ("email:send", "media:render.4k"). Names are unique per kind across all
// files.
//
// # Entry points
//
// Load reads files and directories, Parse reads in-memory sources, and
// WriteDiagnostics prints what they report. Format is the canonical layout
// used by pgseq fmt; WriteHCL renders a state (such as one inspected from a
// database) as configuration that parses back to the same state.
package spec
