package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/migrations"
)

// Driver is what drains the seeded tasks.
type Driver string

const (
	// DriverWorker drains with in-process queue.Workers (the default).
	DriverWorker Driver = "worker"
	// DriverSQL drains through the SQL API from outside, as a worker in
	// another language would: claimer goroutines, each on its own
	// connection, call claim and complete_and_take (see sqlClaimer).
	DriverSQL Driver = "sql"
)

// Defaults of the sql driver: 8 claimers claiming 100 tasks at a time.
const (
	SQLDriverWorkers   = 8
	SQLDriverBatchSize = 100
)

// sqlPollInterval is how long a claimer waits after a claim found nothing
// (the queue's remaining tasks wait for units other claimers hold).
const sqlPollInterval = 10 * time.Millisecond

// ParseDriver returns the driver named s.
func ParseDriver(s string) (Driver, error) {
	switch d := Driver(s); d {
	case DriverWorker, DriverSQL:
		return d, nil
	}
	return "", fmt.Errorf("unknown drain driver %q (known: %s, %s)", s, DriverWorker, DriverSQL)
}

// sqlClaimers opens the sql driver's claimers for one run, before its clock
// starts: each holds a connection of the workers' pool for the whole run
// and is registered with register_worker. The returned functions drain
// until ctx ends, then release their connections.
func (d *drainer) sqlClaimers(ctx context.Context, c DrainCase, schema string, round int, obs *drainObserver) ([]func(context.Context) error, error) {
	heartbeatEvery := time.Duration(c.Config.Queues[0].WorkerTimeout) / 3
	register := migrations.Render(`SELECT {{schema}}.register_worker($1, $2, $3, $4)`, schema)
	var claimers []*sqlClaimer
	for i := range d.opts.Workers {
		conn, err := d.workers.Acquire(ctx)
		if err == nil {
			id := fmt.Sprintf("bench-sql-%s-%d-%d", c.Name, round, i+1)
			cl := &sqlClaimer{conn: conn, schema: schema, queue: c.queue(), id: id, batch: d.opts.BatchSize,
				handlerDelay: c.HandlerDelay, heartbeatEvery: heartbeatEvery, obs: obs}
			claimers = append(claimers, cl)
			_, err = conn.Exec(ctx, register, id, "pgseq-bench", d.opts.BatchSize, "pgseq bench (sql driver)")
		}
		if err != nil {
			for _, cl := range claimers {
				cl.conn.Release()
			}
			return nil, fmt.Errorf("starting claimer %d: %w", i+1, err)
		}
	}
	runs := make([]func(context.Context) error, len(claimers))
	for i, cl := range claimers {
		runs[i] = cl.run
	}
	return runs, nil
}

// sqlClaimer drains as docs/sql-api.md tells a worker in another
// language to: claim a batch, run it, complete it with complete_and_take,
// whose tasks (the waiting tasks the finished tasks' units passed to, taken
// for this worker in the same write) start the next batch, topped up by a
// claim when they are fewer than the batch size. Every call is a
// transaction of its own (autocommit).
type sqlClaimer struct {
	conn              *pgxpool.Conn
	schema, queue, id string
	batch             int
	handlerDelay      time.Duration
	heartbeatEvery    time.Duration
	obs               *drainObserver

	claimSQL, takeSQL, heartbeatSQL string
	lastHeartbeat                   time.Time
	ids                             []int64 // the batch being run
}

func (cl *sqlClaimer) run(ctx context.Context) error {
	defer cl.conn.Release()
	cl.claimSQL = migrations.Render(`SELECT id, type, payload, attempts FROM {{schema}}.claim($1, $2, $3)`, cl.schema)
	cl.takeSQL = migrations.Render(`SELECT completed, id, type, payload, attempts FROM {{schema}}.complete_and_take($1, $2, $3)`, cl.schema)
	cl.heartbeatSQL = migrations.Render(`SELECT {{schema}}.heartbeat($1)`, cl.schema)
	cl.lastHeartbeat = time.Now()
	err := cl.loop(ctx)
	if ctx.Err() != nil {
		return nil // the drain is over (or interrupted): a call cut short is no failure
	}
	return err
}

func (cl *sqlClaimer) loop(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := cl.heartbeat(ctx); err != nil {
			return err
		}
		if len(cl.ids) < cl.batch {
			if err := cl.claim(ctx, cl.batch-len(cl.ids)); err != nil {
				return err
			}
			if len(cl.ids) == 0 {
				sleepCtx(ctx, sqlPollInterval)
				continue
			}
		}
		// "Run" the batch: its tasks at once, each taking the handler delay.
		sleepCtx(ctx, cl.handlerDelay)
		if err := cl.completeAndTake(ctx); err != nil {
			return err
		}
	}
	return nil
}

// claim adds up to want newly claimed tasks to the batch.
func (cl *sqlClaimer) claim(ctx context.Context, want int) error {
	start := time.Now()
	rows, _ := cl.conn.Query(ctx, cl.claimSQL, cl.queue, cl.id, want)
	var id int64
	var typ string
	var payload []byte
	var attempts int
	before := len(cl.ids)
	if _, err := pgx.ForEachRow(rows, []any{&id, &typ, &payload, &attempts}, func() error {
		cl.ids = append(cl.ids, id)
		return nil
	}); err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	cl.obs.Claimed(want, len(cl.ids)-before, time.Since(start), nil)
	return nil
}

// completeAndTake completes the batch; the tasks it hands over are the
// next batch.
func (cl *sqlClaimer) completeAndTake(ctx context.Context) error {
	start := time.Now()
	rows, _ := cl.conn.Query(ctx, cl.takeSQL, cl.ids, cl.id, cl.batch)
	var completed int
	var id *int64
	var typ *string
	var payload []byte
	var attempts *int
	var next []int64
	if _, err := pgx.ForEachRow(rows, []any{&completed, &id, &typ, &payload, &attempts}, func() error {
		if id != nil {
			next = append(next, *id)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("complete_and_take: %w", err)
	}
	if completed != len(cl.ids) {
		return fmt.Errorf("complete_and_take completed %d of the claimer's %d tasks", completed, len(cl.ids))
	}
	cl.obs.Completed(len(cl.ids), completed, time.Since(start), nil)
	cl.ids = next
	return nil
}

// heartbeat beats when a third of the queue's worker_timeout has passed
// since the last one (or since the claimer registered).
func (cl *sqlClaimer) heartbeat(ctx context.Context) error {
	if time.Since(cl.lastHeartbeat) < cl.heartbeatEvery {
		return nil
	}
	var alive bool
	if err := cl.conn.QueryRow(ctx, cl.heartbeatSQL, cl.id).Scan(&alive); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if !alive {
		return fmt.Errorf("heartbeat: claimer %s was declared dead", cl.id)
	}
	cl.lastHeartbeat = time.Now()
	return nil
}

// drainedBy says, for drain.md, what drained the tasks under the sql
// driver.
func (s DrainSettings) sqlDrainedBy() string {
	return fmt.Sprintf("%s through the SQL API (driver `sql`; each on its own connection loops `claim(queue, worker, %d)` → run → "+
		"`complete_and_take(ids, worker, %d)`, whose tasks start its next batch, topped up by a claim when fewer; every call autocommitted)",
		textfmt.Plural(s.Workers, "claimer"), s.BatchSize, s.BatchSize)
}
