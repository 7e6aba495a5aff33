queue "default" {
	batch_size	= 0
}

task "email:send" {
	concurrency = "ten"
}
