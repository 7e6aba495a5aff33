# want: 7:14: Literal value required
# want: 8:14: Function calls not allowed
scenario "baseline" {
  workload = "drain"

  size {
    tasks  = 1000 * 200
    rounds = max(3, 5)
  }
  types {
    count = 1
  }
}
