# want: 2:7: Invalid queue name
queue "Default" {}
