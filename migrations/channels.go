package migrations

// The LISTEN/NOTIFY channels of a pgseq schema. Every notification carries
// the schema's name as payload, so that workers of several schemas in one
// database can share a channel.
const (
	// ConfigChannel is the channel pgseq apply notifies after every apply:
	// workers reload their queue's settings.
	ConfigChannel = "pgseq_config"
	// TasksChannel is the channel the runtime's SQL (hand_off, migration
	// 005) notifies when slot units pass to tasks it leaves open for any
	// worker: idle workers claim at once instead of at their next poll.
	// SQL cannot read a Go constant; TestTasksChannelIsTheOneTheRuntimeNotifies
	// checks that the two agree.
	TasksChannel = "pgseq_tasks"
)
