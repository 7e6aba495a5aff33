# want: 3:3: prefix_from on a standalone counter
counter "invoice_number" {
  prefix_from {
    table  = "app.tenants"
    column = "key"
  }
}
