# want: 23:14: Rounds differ from the reference
# want: 35:14: Rounds differ from the reference
# want: 47:14: Rounds differ from the reference
scenario "baseline" {
  workload = "drain"

  size {
    rounds = 5
  }
  quick {
    rounds = 2
  }
  types {
    count = 1
  }
}

scenario "enabled" {
  workload = "drain"
  against  = "baseline"

  size {
    rounds = 3
  }
  types {
    count = 1
  }
}

scenario "mixed" {
  workload = "drain"
  against  = "baseline"

  size {
    rounds = 5
  }
  types {
    count = 1
  }
}

scenario "many" {
  workload = "drain"
  against  = "baseline"

  quick {
    rounds = 3
  }
  types {
    count = 1
  }
}
