# want: 5:14: Invalid strategy
counter "task_index" {
  table    = "public.tasks"
  column   = "index"
  strategy = "advisory"
}
