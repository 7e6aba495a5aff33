# want: 5:27: Invalid column name
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id", "team id"]
}
