# want: 3:3: Missing column
counter "task_index" {
  table = "public.tasks"
  scope = ["project_id"]
}
