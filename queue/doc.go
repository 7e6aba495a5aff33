// Package queue is the Go client of pgseq's job-queue runtime: the SQL
// functions pgseq apply installs in its schema (enqueue, claim, complete,
// fail, heartbeats, leader election, maintenance).
//
// A Client enqueues tasks, on a pool or inside the caller's transaction:
//
//	c := queue.NewClient(pool, "pgseq")
//	id, err := c.Enqueue(ctx, "email:send", map[string]string{"to": "a@example.com"})
//	id, err = c.WithDB(tx).Enqueue(ctx, "email:send", payload, queue.WithIdempotencyKey(key))
//
// A Worker runs handlers for the tasks of one queue until its context is
// cancelled:
//
//	w, err := queue.NewWorker(queue.Config{Pool: pool, Queue: "default"})
//	w.Handle("email:send", func(ctx context.Context, t *queue.Task) error { … })
//	err = w.Run(ctx)
//
// The worker claims batches ahead of its handlers so they never wait for a
// round trip, completes finished tasks in batches, fails tasks whose handler
// returns an error or panics (the queue's retry and backoff settings apply),
// heartbeats, takes part in leader election and runs maintenance while it
// leads, and reloads its queue's settings when pgseq apply notifies the
// pgseq_config channel. Limits are enforced in the database (a limited task
// is claimable only while it holds one of its type's slot units), so a new
// limit applies at once without any reload. When most of a batch of
// finished tasks held units, the worker completes it with
// complete_and_take, which hands it the waiting tasks those units pass to,
// claimed in the same write (a batch of mostly unlimited tasks completes
// with complete, which opens them for the next claim); it takes only
// what its handlers can start soon (the rest stay open for other workers,
// woken by NOTIFY pgseq_tasks), and completes slow limited tasks at once.
//
// Every database call of the loop runs to completion whatever Run's context
// does, so the worker always knows what it holds. When the connection fails
// after a claim (or a taking completion) was sent (it may have committed
// unseen), the worker shuts
// its session down gracefully and carries on under a new id; the leader
// recovers whatever the old id held once its heartbeat is older than the
// queue's worker_timeout. A worker whose heartbeat says it was declared dead
// abandons its in-flight tasks (they are recovered) and does the same. A call
// that could not connect sent nothing: the worker retries it and keeps its
// session. After the database was unreachable (no worker could heartbeat),
// a leader runs no maintenance until worker_timeout has passed, so that no
// live worker is declared dead for the outage.
//
// Cancelling Run's context shuts down gracefully: no more claims and no new
// task starts (the worker logs "worker stopping"), running handlers get
// Config.ShutdownTimeout to finish, then the unstarted tasks and those still
// running after it (their handlers' contexts are cancelled and their
// results discarded) are released in one call: pending again, the attempt
// not counted.
package queue
