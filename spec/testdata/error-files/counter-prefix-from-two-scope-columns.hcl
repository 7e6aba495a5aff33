# want: 6:3: prefix_from needs one scope column
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id", "team_id"]
  prefix_from {
    table  = "app.projects"
    column = "key"
  }
}
