package applier

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
)

//go:embed sql/*.sql
var statements embed.FS

func statement(name, schema string) string {
	b, err := statements.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("applier: missing statement %s: %v", name, err))
	}
	return migrations.Render(string(b), schema)
}

// DefaultLockTimeout bounds every lock wait of an apply.
const DefaultLockTimeout = 5 * time.Second

// NotifyChannel is the channel apply notifies (payload: the schema) after a
// commit, so workers reload limits and queue settings.
const NotifyChannel = migrations.ConfigChannel

// DB is what an apply needs: a pool. The apply transaction holds the apply
// lock on one connection; the state is read in a snapshot of its own on a
// second one (inspect.InSnapshot), and a third may name a lock holder. A
// single connection does not do.
type DB interface {
	inspect.TxBeginner
	RowsQuerier
}

// Options control an apply.
type Options struct {
	// LockTimeout bounds every lock wait (default DefaultLockTimeout).
	LockTimeout time.Duration
	// AllowDestroy permits destructive changes.
	AllowDestroy bool
	// Client names who applies (os user@host), for the history row.
	Client string
	// Version is the pgseq version, for the history row.
	Version string
	// NoLockWatch turns off the session that watches the apply's lock
	// waits from a third connection (it names the sessions in the way when
	// a wait times out). For counted benchmarks (pgseq bench ab
	// --instructions), where the number of its looks, one a second, would
	// depend on how long the apply takes.
	NoLockWatch bool
	// Review, when set, is shown the plan an apply is about to execute,
	// made under the apply lock, before the destructive check and before
	// anything is written (pgseq apply --auto-approve prints it). An error
	// from it cancels the apply.
	Review func(p *plan.Plan) error
}

// Result reports what an apply did.
type Result struct {
	// Plan is the plan executed: made under the apply lock from the state
	// found there.
	Plan *plan.Plan
	// Migrated lists the schema migrations applied first.
	Migrated []int
	// HistoryID is the id of the applies row written: 0 when none was, for
	// a plan with no change and no drift.
	HistoryID int64
	// Summary counts the changes executed.
	Summary plan.Summary
}

// firstDestructive returns p's first destructive change, or nil.
func firstDestructive(p *plan.Plan) *plan.Change {
	for i := range p.Changes {
		if p.Changes[i].Destructive {
			return &p.Changes[i]
		}
	}
	return nil
}

// ErrDestroyNotAllowed means the plan has destructive changes and
// AllowDestroy was not given.
var ErrDestroyNotAllowed = errors.New("destructive change not allowed")

// Decide makes the plan an apply executes from the state read through q:
// a snapshot taken after the apply lock was granted, on a connection of
// its own. The applier does not plan: package reconcile plans a
// configuration, or checks a saved or approved plan, in a Decide.
type Decide func(q inspect.Querier) (*plan.Plan, error)

// Execute takes the apply lock on schema in a new transaction, lets decide
// make the plan to execute from a snapshot read after the lock was granted
// (so it sees every earlier apply), and executes it in the locked
// transaction with a history row recording hash (the executed plan's when
// empty) and the state the apply left. opts.Review sees the plan before
// anything is written; a destructive change is refused unless
// opts.AllowDestroy is set (ErrDestroyNotAllowed). pgseq's schema is
// created or upgraded first when needed. Nothing is applied on any error.
//
// A plan without changes writes nothing, unless it has drift: then the
// configuration already declares what was changed outside pgseq (or the
// change is one pgseq leaves alone), nothing needs doing, and the history
// row records the state as it is, so the drift is reported once and not by
// every plan after. A plan with changes always brings the drifted objects
// back to the configuration, and its row records the result.
//
// Every lock wait is bounded by opts.LockTimeout; one that times out is a
// *LockWaitError naming the sessions in the way (the apply lock's own, a
// *LockTimeoutError).
func Execute(ctx context.Context, db DB, schema, hash string, opts Options, decide Decide) (*Result, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	var watched any = db
	if opts.NoLockWatch {
		watched = nil // watchLocks watches nothing through what runs no queries
	}
	watch := watchLocks(ctx, watched, opts.LockTimeout)
	defer watch.close()
	res, err := executeWatched(ctx, db, schema, hash, opts, decide, watch)
	return res, explainStatementTimeout(ctx, watch.explain(err), opts.LockTimeout)
}

// executeWatched is Execute, with the sessions it uses watched for lock
// waits.
func executeWatched(ctx context.Context, db DB, schema, hash string, opts Options, decide Decide, watch *lockWatch) (*Result, error) {
	if s, ok := db.(interface{ Stat() *pgxpool.Stat }); ok && s.Stat().MaxConns() < 2 {
		return nil, errors.New("an apply reads the state on a second connection while it holds the apply lock on a first: the connection pool needs at least 2 connections (pool_max_conns)")
	}
	tx, err := db.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return nil, fmt.Errorf("beginning the apply transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	watch.add(tx)

	if err := setLockTimeout(ctx, tx, opts.LockTimeout); err != nil {
		return nil, err
	}
	if err := Lock(ctx, tx, db, schema, opts.LockTimeout); err != nil {
		return nil, err
	}

	var p *plan.Plan
	if err := secondSnapshot(ctx, db, opts.LockTimeout, func(q inspect.Querier) error {
		// The snapshot is taken here, after the apply lock was granted.
		watch.add(q)
		if err := setLockTimeout(ctx, q, opts.LockTimeout); err != nil {
			return err
		}
		var err error
		p, err = decide(q)
		return err
	}); err != nil {
		return nil, err
	}
	res := &Result{Plan: p, Summary: p.Summary}
	if opts.Review != nil {
		if err := opts.Review(p); err != nil {
			return nil, err
		}
	}
	if p.Empty() && len(p.Drift) == 0 {
		return res, nil
	}
	if c := firstDestructive(p); c != nil && !opts.AllowDestroy {
		return nil, fmt.Errorf("%w: %s: %s; re-run with --allow-destroy to do it anyway",
			ErrDestroyNotAllowed, c.Address, strings.Join(c.Reasons, "; "))
	}
	if res.Migrated, err = migrations.Up(ctx, tx, schema); err != nil {
		return nil, err
	}
	if len(p.Changes) > 0 {
		if err := runStatements(ctx, tx, p, opts, res.Migrated); err != nil {
			return nil, err
		}
	}
	if hash == "" {
		hash = p.Hash()
	}
	if res.HistoryID, err = writeHistory(ctx, tx, p, hash, opts); err != nil {
		return nil, err
	}
	if len(p.Changes) > 0 {
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, schema); err != nil {
			return nil, fmt.Errorf("notifying workers: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("committing the apply: %w", err)
	}
	return res, nil
}

// ErrNoSecondConnection means an apply, holding the apply lock on one
// connection, could not begin the snapshot it reads the state in on a
// second within the lock timeout: behind a connection pooler whose pool
// has one server connection, that second connection waits for the first,
// which waits for it.
var ErrNoSecondConnection = errors.New("an apply holds the apply lock on one connection and reads the state on a second, " +
	"which got no server connection: behind a connection pooler (PgBouncer in transaction mode), " +
	"the pool needs at least 2 server connections for an apply (default_pool_size or pool_size ≥ 2; " +
	"docs/connecting.md, \"Behind a connection pooler\")")

// secondSnapshot is inspect.InSnapshot on db while the caller holds a
// transaction on another of its connections, with the snapshot's BEGIN
// bounded by timeout: a pooler with one server connection would keep it
// waiting for the caller's transaction (until its query_wait_timeout, two
// minutes by default), never answering.
func secondSnapshot(ctx context.Context, db DB, timeout time.Duration, fn func(q inspect.Querier) error) error {
	err := inspect.InSnapshotWithin(ctx, db, timeout, fn)
	if errors.Is(err, inspect.ErrBeginTimeout) {
		return fmt.Errorf("%w (waited %s)", ErrNoSecondConnection, timeout)
	}
	return err
}

// Migrate brings the schema to the latest version under the apply lock, on
// its own: `pgseq migrate`.
func Migrate(ctx context.Context, db DB, schema string, lockTimeout time.Duration) ([]int, error) {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	watch := watchLocks(ctx, db, lockTimeout)
	defer watch.close()
	tx, err := db.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return nil, fmt.Errorf("beginning the migration transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	watch.add(tx)
	if err := setLockTimeout(ctx, tx, lockTimeout); err != nil {
		return nil, err
	}
	if err := Lock(ctx, tx, db, schema, lockTimeout); err != nil {
		return nil, err
	}
	applied, err := migrations.Up(ctx, tx, schema)
	if err != nil {
		return nil, watch.explain(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("committing migrations: %w", err)
	}
	return applied, nil
}

// typeLocksBoundedVersion is the schema version whose type locks are one
// of 1,024 keys per schema (migration 017); the versions before it took one
// key per type.
const typeLocksBoundedVersion = 17

// batch collects the plan's changes by kind of statement.
type batch struct {
	queues []*catalog.Queue
	tasks  []*catalog.TaskType
	// Existing task types whose slot groups change: locked against the
	// runtime, then rebalanced. A type the apply creates is in neither:
	// no runtime call sees it before the apply commits, and it has no
	// tasks, so it takes no entry of the server's lock table (20,000 new
	// types once filled a default server's).
	lockSlots []string
	dropSlots []string
	// Slot groups to create or resize, as runs of consecutive groups of
	// one capacity (first, last): 100,000 new types are some 100,000 runs,
	// not 5,000,000 rows to send.
	setType      []string
	setFirst     []int32
	setLast      []int32
	setCap       []int32
	removeType   []string
	removeGroup  []int32
	deleteTasks  []string
	deleteQueues []string
	// Task types the apply creates: a type deleted earlier may have left
	// unfinished tasks of its name (see leftovers).
	created []*catalog.TaskType
	// Existing task types whose partition block changes (or that are
	// deleted with one): locked against the runtime, then their tasks
	// follow (apply_partitions).
	partitions []string
	// Pending tasks whose lane or queue must follow their type.
	retargetType    []string
	retargetQueue   []*string
	retargetLimited []bool
}

// retarget records that pending tasks of a type must move to another claim
// lane or queue: when a limit appears or disappears, the queue changes, or
// the type is deleted (its tasks then claim as unlimited, on their queue).
func (b *batch) retarget(c plan.Change) {
	before, _ := c.Before.(*catalog.TaskType)
	after, _ := c.After.(*catalog.TaskType)
	if before != nil && (after == nil && before.Partitioned() || after != nil && !samePartition(before.Partition, after.Partition)) {
		b.partitions = append(b.partitions, c.Name)
	}
	switch {
	case before == nil: // created: see leftovers
	case after == nil:
		if before.Limited() {
			b.retargetType = append(b.retargetType, c.Name)
			b.retargetQueue = append(b.retargetQueue, nil)
			b.retargetLimited = append(b.retargetLimited, false)
		}
	case before.Limited() != after.Limited() || before.Queue != after.Queue:
		q := after.Queue
		b.retargetType = append(b.retargetType, c.Name)
		b.retargetQueue = append(b.retargetQueue, &q)
		b.retargetLimited = append(b.retargetLimited, after.Limited())
	}
}

// samePartition reports whether two partition blocks are the same.
func samePartition(a, b *catalog.Partition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// leftovers adds to the batch the task types it creates that have
// unfinished tasks: a type deleted while it had some left them to claim as
// unlimited tasks, and declared again they follow it (its lane, its
// queue), admitted by rebalance_units. Read before the types' locks: no
// runtime call makes a task of an undeclared type, so the tasks found here
// only finish, and any of them that goes back to pending is one of those
// found. Returns the limited ones, to rebalance.
func (b *batch) leftovers(ctx context.Context, tx pgx.Tx, schema string) ([]string, error) {
	if len(b.created) == 0 {
		return nil, nil
	}
	names := make([]string, len(b.created))
	for i, t := range b.created {
		names[i] = t.Name
	}
	rows, err := tx.Query(ctx, statement("leftover_types", schema), names)
	if err != nil {
		return nil, fmt.Errorf("reading the unfinished tasks of task types the apply creates: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading the unfinished tasks of task types the apply creates: %w", err)
	}
	var limited []string
	for _, t := range b.created {
		if !slices.Contains(found, t.Name) {
			continue
		}
		q := t.Queue
		b.retargetType = append(b.retargetType, t.Name)
		b.retargetQueue = append(b.retargetQueue, &q)
		b.retargetLimited = append(b.retargetLimited, t.Limited())
		if t.Limited() {
			limited = append(limited, t.Name)
		}
	}
	return limited, nil
}

// lockedTypes returns the task types an apply locks against the runtime:
// those whose slot groups change and those whose pending tasks move.
func (b *batch) lockedTypes() []string {
	out := slices.Clone(b.lockSlots)
	for _, t := range slices.Concat(b.retargetType, b.partitions) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func collect(p *plan.Plan) (*batch, error) {
	b := &batch{}
	for _, c := range p.Changes {
		switch c.Kind {
		case plan.KindQueue:
			switch c.Action {
			case plan.Create, plan.Update:
				q, ok := c.After.(*catalog.Queue)
				if !ok {
					return nil, fmt.Errorf("%s: after is not a queue", c.Address)
				}
				b.queues = append(b.queues, q)
			case plan.Delete:
				b.deleteQueues = append(b.deleteQueues, c.Name)
			}
		case plan.KindTask:
			switch c.Action {
			case plan.Create, plan.Update:
				t, ok := c.After.(*catalog.TaskType)
				if !ok {
					return nil, fmt.Errorf("%s: after is not a task type", c.Address)
				}
				b.tasks = append(b.tasks, t)
				if c.Action == plan.Create {
					b.created = append(b.created, t)
				}
			case plan.Delete:
				b.deleteTasks = append(b.deleteTasks, c.Name)
			}
			b.retarget(c)
			if s := c.Slots; s != nil {
				if c.Action != plan.Create {
					b.lockSlots = append(b.lockSlots, c.Name)
				}
				if s.Drop {
					b.dropSlots = append(b.dropSlots, c.Name)
				}
				for _, g := range s.Set {
					if n := len(b.setType); n > 0 && b.setType[n-1] == c.Name && b.setLast[n-1] == int32(g.Group)-1 && b.setCap[n-1] == int32(g.Capacity) {
						b.setLast[n-1]++
						continue
					}
					b.setType = append(b.setType, c.Name)
					b.setFirst = append(b.setFirst, int32(g.Group))
					b.setLast = append(b.setLast, int32(g.Group))
					b.setCap = append(b.setCap, int32(g.Capacity))
				}
				for _, g := range s.Remove {
					b.removeType = append(b.removeType, c.Name)
					b.removeGroup = append(b.removeGroup, int32(g))
				}
			}
		}
	}
	return b, nil
}

// runStatements runs one statement per kind of change, in dependency order:
// queues, task types, slot groups, then deletions, counters and access
// levels.
//
// migrated are the schema versions this apply migrated to before: when it
// upgraded the schema past version 16, runtime sessions still run version
// 16's definitions until it commits, and it takes their type locks too.
func runStatements(ctx context.Context, tx pgx.Tx, p *plan.Plan, opts Options, migrated []int) error {
	b, err := collect(p)
	if err != nil {
		return err
	}
	schema := p.Schema
	run := func(what, name string, args ...any) error {
		if _, err := tx.Exec(ctx, statement(name, schema), args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	if len(b.deleteQueues) > 0 && !opts.AllowDestroy {
		var n int64
		if err := tx.QueryRow(ctx, statement("count_unfinished", schema), b.deleteQueues).Scan(&n); err != nil {
			return fmt.Errorf("counting unfinished tasks of deleted queues: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("%w: the queues to delete (%s) now have %d unfinished tasks; re-run with --allow-destroy to delete them",
				ErrDestroyNotAllowed, strings.Join(b.deleteQueues, ", "), n)
		}
	}
	rebalance, err := b.leftovers(ctx, tx, schema)
	if err != nil {
		return err
	}
	rebalance = append(slices.Clone(b.lockSlots), rebalance...)
	// The types' locks first, exclusive: a runtime call on these types
	// either commits before (and its tasks are seen below) or waits for this
	// apply and then reads the types as it leaves them. Then pending task
	// rows, never running ones (a runtime call holding a running task may
	// wait for these locks), then slot rows: the runtime's locking order
	// (migration 012).
	if locked := b.lockedTypes(); len(locked) > 0 {
		if err := run("locking task types against the runtime", "lock_types", locked); err != nil {
			return err
		}
		if slices.Contains(migrated, typeLocksBoundedVersion) {
			if err := run("locking task types against the runtime of schema version 16", "lock_types_v16", locked); err != nil {
				return err
			}
		}
	}
	if len(b.retargetType) > 0 {
		if err := run("moving pending tasks to their type's claim lane and queue", "retarget_pending",
			b.retargetType, b.retargetQueue, b.retargetLimited); err != nil {
			return err
		}
	}
	if len(b.lockSlots) > 0 {
		if err := run("locking slot groups", "lock_slots", b.lockSlots); err != nil {
			return err
		}
	}
	if len(b.queues) > 0 {
		n := len(b.queues)
		names, sizes, retries := make([]string, n), make([]int32, n), make([]int32, n)
		bi, bm, wt, ll, rc, rd := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		bf, bj := make([]float64, n), make([]float64, n)
		for i, q := range b.queues {
			names[i], sizes[i], retries[i] = q.Name, int32(q.BatchSize), int32(q.MaxRetries)
			bi[i], bm[i] = q.Backoff.Initial.Std().Microseconds(), q.Backoff.Max.Std().Microseconds()
			bf[i], bj[i] = q.Backoff.Factor, q.Backoff.Jitter
			wt[i], ll[i] = q.WorkerTimeout.Std().Microseconds(), q.LeaderLease.Std().Microseconds()
			rc[i], rd[i] = q.Retention.Completed.Std().Microseconds(), q.Retention.DeadLetter.Std().Microseconds()
		}
		if err := run("writing queues", "upsert_queues", names, sizes, retries, bi, bm, bf, bj, wt, ll, rc, rd); err != nil {
			return err
		}
	}
	if len(b.tasks) > 0 {
		n := len(b.tasks)
		names, queues := make([]string, n), make([]string, n)
		conc, prio, perKey := make([]int32, n), make([]int32, n), make([]int32, n)
		retries := make([]*int32, n)
		by := make([]*string, n)
		for i, t := range b.tasks {
			names[i], queues[i] = t.Name, t.Queue
			conc[i], prio[i] = int32(t.Concurrency), int32(t.Priority)
			if t.MaxRetries != nil {
				v := int32(*t.MaxRetries)
				retries[i] = &v
			}
			if p := t.Partition; p != nil {
				perKey[i] = int32(p.Concurrency)
				if p.By != "" {
					by[i] = &p.By
				}
			}
		}
		if err := run("writing task types", "upsert_task_types", names, queues, conc, retries, prio, perKey, by); err != nil {
			return err
		}
	}
	if len(b.dropSlots) > 0 {
		if err := run("removing the slot groups of unlimited task types", "drop_slots", b.dropSlots); err != nil {
			return err
		}
	}
	if len(b.setType) > 0 {
		if err := run("writing slot groups", "set_slots", b.setType, b.setFirst, b.setLast, b.setCap); err != nil {
			return err
		}
	}
	if len(b.removeType) > 0 {
		if err := run("removing surplus slot groups", "remove_slots", b.removeType, b.removeGroup); err != nil {
			return err
		}
	}
	if len(rebalance) > 0 {
		if err := run("bringing slot units in line with the new limits", "rebalance_units", rebalance); err != nil {
			return err
		}
	}
	if len(b.deleteTasks) > 0 {
		if err := run("deleting task types", "delete_task_types", b.deleteTasks); err != nil {
			return err
		}
	}
	if len(b.partitions) > 0 {
		if err := run("bringing tasks in line with the per-key limits", "apply_partitions", b.partitions); err != nil {
			return err
		}
	}
	if len(b.deleteQueues) > 0 {
		if err := run("deleting queues", "delete_queues", b.deleteQueues); err != nil {
			return err
		}
	}
	if err := applyCounters(ctx, tx, p); err != nil {
		return err
	}
	return applyAccess(ctx, tx, p)
}

// writeHistory records the apply of p, whose reviewed plan has hash, with
// the managed state it left (read in tx, after the changes): the baseline
// the next plans compare the database with to show drift.
func writeHistory(ctx context.Context, tx pgx.Tx, p *plan.Plan, hash string, opts Options) (int64, error) {
	changes := make([]string, len(p.Changes))
	for i, c := range p.Changes {
		changes[i] = string(c.Action) + " " + c.Address
	}
	left, _, err := inspect.ReadManaged(ctx, tx, p.Schema)
	if err != nil {
		return 0, fmt.Errorf("reading the state the apply leaves: %w", err)
	}
	state, err := inspect.EncodeApplied(left)
	if err != nil {
		return 0, fmt.Errorf("recording the state the apply leaves: %w", err)
	}
	// Every parameter typed and encoded here: the statement then runs in
	// any of pgx's query modes (a pooler in transaction mode needs exec
	// or simple_protocol, where pgx cannot ask the server for the types).
	summary, err := json.Marshal(p.Summary)
	if err != nil {
		return 0, fmt.Errorf("recording the plan's summary: %w", err)
	}
	var id int64
	err = tx.QueryRow(ctx, statement("insert_history", p.Schema),
		opts.Client, opts.Version, hash, p.Fingerprint, string(summary), changes, string(state)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("writing the apply history: %w", err)
	}
	return id, nil
}
