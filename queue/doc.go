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
// pgseq_config channel. Limits are enforced by the claim in the database, so
// a new limit applies to the next claim without any reload.
//
// Every database call of the loop runs to completion whatever Run's context
// does, so the worker always knows what it holds. When the connection fails
// after a claim was sent (it may have committed unseen), the worker shuts
// its session down gracefully and carries on under a new id; the leader
// recovers whatever the old id held once its heartbeat is older than the
// queue's worker_timeout. A worker whose heartbeat says it was declared dead
// abandons its in-flight tasks (they are recovered) and does the same.
//
// Cancelling Run's context shuts down gracefully: no more claims, unstarted
// tasks are released at once, running handlers get Config.ShutdownTimeout
// to finish, and tasks still running after it are released too (their
// handlers' contexts are cancelled and their results discarded).
package queue
