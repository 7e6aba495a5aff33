# want: 8:3: Duplicate size block
scenario "baseline" {
  workload = "drain"

  size {
    tasks = 1000
  }
  size {
    rounds = 3
  }
  types {
    count = 1
  }
}
