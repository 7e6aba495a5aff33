# want: 7:9: Duplicate counter
counter "invoice_number" {
  start = 1000
}

# The same name again.
counter "invoice_number" {
  prefix = "INV"
}
