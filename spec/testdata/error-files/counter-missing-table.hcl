# want: 3:3: Missing table
counter "task_index" {
  column = "index"
}
