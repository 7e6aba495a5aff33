package queue

import (
	"embed"
	"fmt"

	"github.com/pgseq/pgseq/migrations"
)

//go:embed sql/*.sql
var sqlFiles embed.FS

// statements holds the runtime's SQL rendered for one schema.
type statements struct {
	enqueue, enqueueBatch                     string
	enqueueKeyed, enqueueBatchKeyed           string
	claim, complete, completeAndTake          string
	completeAndReserve                        string
	fail, release                             string
	registerWorker, heartbeat                 string
	electLeader, resignLeader, runMaintenance string
	unregisterWorker                          string
	queueSettings, taskTypes                  string
}

func load(name, schema string) string {
	b, err := sqlFiles.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("queue: missing statement %s: %v", name, err))
	}
	return migrations.Render(string(b), schema)
}

func newStatements(schema string) *statements {
	return &statements{
		enqueue:            load("enqueue", schema),
		enqueueBatch:       load("enqueue_batch", schema),
		enqueueKeyed:       load("enqueue_keyed", schema),
		enqueueBatchKeyed:  load("enqueue_batch_keyed", schema),
		claim:              load("claim", schema),
		complete:           load("complete", schema),
		completeAndTake:    load("complete_and_take", schema),
		completeAndReserve: load("complete_and_reserve", schema),
		fail:               load("fail", schema),
		release:            load("release", schema),
		registerWorker:     load("register_worker", schema),
		heartbeat:          load("heartbeat", schema),
		electLeader:        load("elect_leader", schema),
		resignLeader:       load("resign_leader", schema),
		runMaintenance:     load("run_maintenance", schema),
		unregisterWorker:   load("unregister_worker", schema),
		queueSettings:      load("queue_settings", schema),
		taskTypes:          load("task_types", schema),
	}
}
