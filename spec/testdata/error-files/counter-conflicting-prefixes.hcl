# want: 6:3: Conflicting prefixes
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id"]
  prefix = "PROJ"
  prefix_from {
    table  = "app.projects"
    column = "key"
  }
}
