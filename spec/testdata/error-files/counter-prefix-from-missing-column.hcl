# want: 6:3: Missing required argument
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id"]
  prefix_from {
    table = "app.projects"
  }
}
