# want: 4:3: Scope on a standalone counter
counter "invoice_number" {
  start = 1000
  scope = ["tenant_id"]
}
