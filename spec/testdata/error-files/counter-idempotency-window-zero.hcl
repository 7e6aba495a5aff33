# want: 3:24: Invalid idempotency_window
counter "invoice_number" {
  idempotency_window = "0s"
}
