# want: 3:18: Incorrect value type
queue "default" {
  leader_lease = 15
}
