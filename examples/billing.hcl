# Billing: invoice numbers must be gapless by law (no number may be missing
# from the books), and invoices are created by a payment provider's webhook,
# outside our database transaction — so numbers are allocated in two phases.

queue "billing" {
  batch_size     = 20
  max_retries    = 10
  worker_timeout = "1m"
  leader_lease   = "15s"

  backoff {
    initial = "5s"
    max     = "30m"
    factor  = 2
    jitter  = 0.2
  }

  retention {
    completed   = "90d" # kept for the auditors
    dead_letter = "365d"
  }
}

# Renders the invoice PDF and mails it once the number is assigned.
task "invoice:issue" {
  queue       = "billing"
  concurrency = 8 # the PDF renderer's pool
}

task "invoice:remind" {
  queue    = "billing"
  priority = -10
}

# One numbering for the whole company: INV-1000, INV-1001, … A webhook calls
# reserve(counter, '', idempotency key) when it arrives, and
# commit_reservation(id, invoice id) in the transaction that records the
# invoice; a number is only ever assigned to an invoice that exists. A
# reservation still pending after 15 minutes is failed by the reaper and burns
# no number.
counter "invoice_number" {
  start              = 1000
  prefix             = "INV"
  lock_timeout       = "3s"
  idempotency_window = "15m"
}

# Journal entries restart at 1 each fiscal year: next_value('journal_entry',
# '2026') inside the transaction that writes the entry. Scoped, so no
# constant prefix (JE-12 would be ambiguous across years).
counter "journal_entry" {
  start        = 1
  lock_timeout = "3s"
}
