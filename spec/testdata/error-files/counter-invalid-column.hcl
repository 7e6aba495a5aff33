# want: 4:12: Invalid column name
counter "task_index" {
  table  = "public.tasks"
  column = "tasks.index"
}
