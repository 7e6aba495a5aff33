# want: 5:3: Unsupported block type
scenario "baseline" {
  workload = "drain"

  sizes {
    tasks = 1000
  }
  types {
    count = 1
  }
}
