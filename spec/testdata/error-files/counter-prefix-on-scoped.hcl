# want: 6:12: Prefix on a scoped counter
counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id"]
  prefix = "PROJ"
}
