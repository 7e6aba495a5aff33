# want: 5:27: Duplicate scope column
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id", "project_id"]
}
