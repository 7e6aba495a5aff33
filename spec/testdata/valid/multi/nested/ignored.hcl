# Load does not descend into subdirectories: were this file read, the queue
# would be a duplicate.
queue "default" {}
