# want: 10:12: Column already numbered
counter "task_index" {
  table  = "public.tasks"
  column = "index"
}

# "tasks" is "public.tasks": the same column again.
counter "task_number" {
  table  = "tasks"
  column = "index"
}
