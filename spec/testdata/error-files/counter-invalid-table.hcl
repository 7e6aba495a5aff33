# want: 3:12: Invalid table name
counter "task_index" {
  table  = "public.my tasks"
  column = "index"
}
