# want: 5:3: Unsupported argument
queue "default" {}

access {
  worker = ["app_worker"]
}
