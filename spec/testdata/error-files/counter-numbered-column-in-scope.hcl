# want: 5:27: Numbered column in scope
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id", "index"]
}
