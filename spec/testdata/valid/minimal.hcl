# The smallest useful configuration: one queue with every default and one
# task type on it, without a concurrency limit.
queue "default" {}

task "email:send" {}
