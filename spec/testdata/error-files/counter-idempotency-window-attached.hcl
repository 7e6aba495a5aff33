# want: 5:3: Idempotency window on an attached counter
counter "task_index" {
  table              = "public.tasks"
  column             = "index"
  idempotency_window = "10m"
}
