# Counters of both kinds. A configuration need not declare queues or tasks.

# Attached: numbers the rows of public.tasks per project through a trigger;
# each project's keys take its prefix from app.projects.key (PROJ-42).
counter "task_index" {
  table  = "tasks" # stored as "public.tasks"
  column = "index"
  scope  = ["project_id"]
  prefix_from {
    table  = "app.projects"
    column = "key"
  }
  start        = 1
  lock_timeout = "2s"
  strategy     = "counter_table"
}

# Attached with only what is required: one numbering for the whole table.
# Names are used as written: case matters.
counter "ticket_number" {
  table  = "support.Tickets"
  column = "number"
}

# Attached, scoped by two columns, numbered under an advisory lock.
counter "_line_no" {
  table        = "public.order_lines"
  column       = "line_no"
  scope        = ["tenant_id", "order_id"]
  strategy     = "advisory_lock"
  lock_timeout = "250ms"
}

# Attached with a constant prefix: fine without a scope (ISS-7). The
# prefix is stored upper-case.
counter "issue_key" {
  table  = "issues"
  column = "seq"
  scope  = []
  prefix = "iss"
}

# Standalone: next_value('invoice_number') inside the caller's transaction,
# with two-phase allocation for invoices created outside the database.
counter "invoice_number" {
  start              = 1000
  prefix             = "INV"
  idempotency_window = "10m"
}

# Standalone with every default.
counter "receipt_no" {}
