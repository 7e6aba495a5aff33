# want: 3:11: Invalid start
counter "invoice_number" {
  start = 0
}
