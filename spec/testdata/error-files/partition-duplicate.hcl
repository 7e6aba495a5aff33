# want: 5:3: Duplicate partition block
queue "default" {}
task "render" {
  partition { concurrency = 1 }
  partition { concurrency = 2 }
}
