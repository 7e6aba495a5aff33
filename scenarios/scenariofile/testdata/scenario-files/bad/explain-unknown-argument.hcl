# want: 10:5: Unsupported argument
scenario "explain" {
  workload = "explain"

  types {
    count = 1
  }
  explain {
    batch   = 100
    batches = 2
  }
}
