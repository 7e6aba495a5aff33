# want: 3:12: Invalid table name
counter "task_index" {
  table  = "\"Tasks\""
  column = "index"
}
