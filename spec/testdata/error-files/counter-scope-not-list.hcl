# want: 5:12: Incorrect value type
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = "project_id"
}
