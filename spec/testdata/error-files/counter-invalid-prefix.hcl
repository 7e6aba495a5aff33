# want: 3:12: Invalid prefix
counter "invoice_number" {
  prefix = "INV-"
}
