# want: 3:18: Invalid lock_timeout
counter "invoice_number" {
  lock_timeout = "0s"
}
