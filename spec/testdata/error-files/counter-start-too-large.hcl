# want: 4:11: Invalid start
# 2^62 + 1.
counter "invoice_number" {
  start = 4611686018427387905
}
