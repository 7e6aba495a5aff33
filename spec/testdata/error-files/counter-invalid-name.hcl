# want: 3:9: Invalid counter name
# Counter names become part of SQL object names: no hyphens.
counter "task-index" {
  table  = "public.tasks"
  column = "index"
}
