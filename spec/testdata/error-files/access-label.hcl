# want: 4:8: Extraneous label for access
queue "default" {}

access "default" {
  work = ["app_worker"]
}
