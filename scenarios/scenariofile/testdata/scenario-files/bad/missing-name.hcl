# want: 2:1: Missing name for scenario
scenario {
  workload = "drain"
}
