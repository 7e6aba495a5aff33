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
	reserveSQL                      string
	lastHeartbeat                   time.Time
	ids                             []int64 // the batch being run
	// reserved are reserved successors (with a handler delay: see
	// loopWithSuccessors), started when the batch has run.
	reserved []int64
}

func (cl *sqlClaimer) run(ctx context.Context) error {
	defer cl.conn.Release()
	cl.claimSQL = migrations.Render(`SELECT id, type, payload, attempts FROM {{schema}}.claim($1, $2, $3)`, cl.schema)
	cl.takeSQL = migrations.Render(`SELECT completed, id, type, payload, attempts FROM {{schema}}.complete_and_take($1, $2, $3)`, cl.schema)
	cl.heartbeatSQL = migrations.Render(`SELECT {{schema}}.heartbeat($1)`, cl.schema)
	cl.reserveSQL = migrations.Render(`SELECT completed, id, kind FROM {{schema}}.complete_and_reserve($1, $2, $3, $4, $5)`, cl.schema)
	cl.lastHeartbeat = time.Now()
	var err error
	if cl.handlerDelay > 0 {
		err = cl.loopWithSuccessors(ctx)
	} else {
		err = cl.loop(ctx)
	}
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

// loopWithSuccessors is the loop of docs/sql-api.md for handlers slower
// than a completion's round trip ("Reserved successors for slow
// handlers"): when the batch has run, the claimer starts its reserved
// successors at once and reports them with the batch's completion
// (complete_and_reserve), which passes the finished tasks' units to them
// and reserves as many again; the started ones (less any refused) and the
// tasks taken over are the next batch, topped up by a claim. A batch runs
// for the handler delay from the moment its last task started.
func (cl *sqlClaimer) loopWithSuccessors(ctx context.Context) error {
	var runStart time.Time
	for ctx.Err() == nil {
		if err := cl.heartbeat(ctx); err != nil {
			return err
		}
		if len(cl.ids) < cl.batch {
			before := len(cl.ids)
			if err := cl.claim(ctx, cl.batch-len(cl.ids)); err != nil {
				return err
			}
			if len(cl.ids) == 0 {
				sleepCtx(ctx, sqlPollInterval)
				continue
			}
			if len(cl.ids) > before || runStart.IsZero() {
				runStart = time.Now()
			}
		}
		sleepCtx(ctx, time.Until(runStart.Add(cl.handlerDelay)))
		if ctx.Err() != nil {
			return nil
		}
		// The batch has run: its successors start now.
		runStart = time.Now()
		taken, err := cl.completeAndReserve(ctx)
		if err != nil {
			return err
		}
		if taken {
			runStart = time.Now() // tasks handed over start when they arrive
		}
	}
	return nil
}

// completeAndReserve completes the batch with complete_and_reserve,
// reporting the reserved successors started in its place; the next batch
// is the successors promoted and the tasks taken over (taken says whether
// there were any), and the new reservations are kept.
func (cl *sqlClaimer) completeAndReserve(ctx context.Context) (taken bool, err error) {
	start := time.Now()
	started := cl.reserved
	rows, _ := cl.conn.Query(ctx, cl.reserveSQL, cl.ids, cl.id, started, cl.batch, len(cl.ids))
	var completed int
	var id *int64
	var kind *string
	var next, reserved []int64
	refused := map[int64]bool{}
	if _, err := pgx.ForEachRow(rows, []any{&completed, &id, &kind}, func() error {
		if id == nil {
			return nil
		}
		switch *kind {
		case "taken":
			next = append(next, *id)
		case "reserved":
			reserved = append(reserved, *id)
		case "refused":
			refused[*id] = true
		}
		return nil
	}); err != nil {
		return false, fmt.Errorf("complete_and_reserve: %w", err)
	}
	if completed != len(cl.ids) {
		return false, fmt.Errorf("complete_and_reserve completed %d of the claimer's %d tasks", completed, len(cl.ids))
	}
	if len(refused) > 0 {
		return false, fmt.Errorf("complete_and_reserve refused %d of the claimer's %d started successors", len(refused), len(started))
	}
	cl.obs.Completed(len(cl.ids), completed, time.Since(start), nil)
	cl.ids = append(started, next...)
	cl.reserved = reserved
	return len(next) > 0, nil
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
		"`complete_and_take(ids, worker, %d)`, whose tasks start its next batch, topped up by a claim when fewer; with a handler delay, "+
		"the reserved successors start when a batch has run and `complete_and_reserve(ids, worker, started, %d, len(ids))` passes "+
		"the batch's units to them; every call autocommitted)",
		textfmt.Plural(s.Workers, "claimer"), s.BatchSize, s.BatchSize, s.BatchSize)
}
