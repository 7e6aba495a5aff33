# want: 4:3: Strategy on a standalone counter
counter "invoice_number" {
  start    = 1000
  strategy = "advisory_lock"
}
