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
//	# Attached: numbers a table's rows per scope through a trigger.
//	counter "task_index" {
//	  table        = "public.tasks"   # name or schema.name; a bare name is in schema public
//	  column       = "index"          # the numbered column; table and column go together
//	  scope        = ["project_id"]   # columns numbering restarts for; default []
//	  prefix_from {                   # each scope's key prefix (PROJ-42), read from the table
//	    table  = "app.projects"       #   whose primary key the single scope column references
//	    column = "key"
//	  }
//	  start        = 1                # first value of a new scope, 1..2^62
//	  lock_timeout = "5s"             # 1ms..1h
//	  strategy     = "counter_table"  # or "advisory_lock"
//	}
//
//	# Standalone: next_value(name [, scope]) in the caller's transaction.
//	counter "invoice_number" {
//	  start              = 1000
//	  lock_timeout       = "5s"
//	  prefix             = "INV"      # constant key prefix (INV-1042), stored upper-case
//	  idempotency_window = "10m"      # enables two-phase allocation, at least 1s
//	}
//
// Every argument and nested block is optional; what is left out takes the
// default shown (catalog.DefaultQueue, catalog.DefaultCounterLockTimeout),
// and an argument set to null counts as left out. Durations are strings of
// whole numbers with units d, h, m, s and ms ("90s", "1h30m"). Values are
// literals: references, function calls and operators are rejected.
//
// Queue names match ^[a-z][a-z0-9_-]{0,62}$. Task names match
// ^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$ and are at most 128 bytes
// ("email:send", "media:render.4k"). Counter names match
// ^[a-z_][a-z0-9_]{0,62}$, as they become part of SQL object names. Names
// are unique per kind across all files.
//
// # Counters
//
// A counter with table and column is attached; one with neither is
// standalone, and scope, strategy and prefix_from are for attached counters
// only, idempotency_window for standalone ones only. Tables, columns and
// scope columns are SQL identifiers that need no quotes
// (^[A-Za-z_][A-Za-z0-9_$]{0,62}$, a table optionally preceded by
// "schema."), used exactly as written: case matters. A prefix is a letter
// followed by at most 15 letters or digits. A counter with scope columns
// cannot have a constant prefix, since each scope would repeat its keys;
// prefix_from needs exactly one scope column and excludes prefix. A scope
// lists each column once and never the numbered column, and no two
// counters number the same table column.
//
// Config.Counters records where each counter's table and columns are set,
// and Config.CounterDiag builds a diagnostic pointing there, for checks
// made later against a database.
//
// # Access
//
// One access block names the database roles that may use the schema, by
// access level (catalog.Levels):
//
//	access {
//	  enqueue  = ["app_web"]     # enqueue, enqueue_batch
//	  work     = ["app_worker"]  # claim, complete, fail, heartbeat, maintenance…
//	  counters = ["app_web"]     # next_value, reserve, resolve_key…
//	  read     = ["grafana"]     # read every table
//	}
//
// Each level is a list of role names (catalog.ValidRoleName: letters,
// digits, _, $ and -, at most 63 bytes, not pg_… and not public), each at
// most once per level; a role may hold several levels. A second access
// block is an error. Whether a role exists is checked against the database
// when planning: Config.Roles records where each role is first named, and
// Config.AccessDiag builds a diagnostic pointing there.
//
// # Limits
//
// Before a file is parsed its bytes are checked against limits that no
// real configuration comes near, so that no input can crash or stall the
// parser: a file is at most MaxFileSize bytes (1 MiB; a larger
// configuration is split into several files of a directory), brackets,
// braces, parentheses, interpolations and unary operators nest at most
// MaxNesting (32) levels deep, a number literal has at most
// MaxNumberLength (64) characters, a quoted string or heredoc at most
// MaxStringLength (4096) bytes and an identifier at most
// MaxIdentifierLength (256) bytes. A file over a limit gets one
// diagnostic where the limit is passed and is not parsed. Diagnostics
// quote at most 150 characters of a value and show at most 200
// characters of a source line.
//
// # Entry points
//
// Load reads files and directories, Parse reads in-memory sources, and
// WriteDiagnostics prints what they report. Format is the canonical layout
// used by pgseq fmt; WriteHCL renders a state (such as one inspected from a
// database) as configuration that parses back to the same state.
package spec
