# want: 6:13: Invalid expression
scenario "baseline" {
  workload = "drain"

  size {
    tasks = 
  }
}
