package inspect

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/migrations"
)

//go:embed sql/*.sql
var queries embed.FS

func query(name, schema string) string {
	b, err := queries.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("inspect: missing query %s: %v", name, err))
	}
	return migrations.Render(string(b), schema)
}

// Querier is what Read needs: a pool, a connection or a transaction.
//
// Read runs several queries. Through a pool or a READ COMMITTED transaction
// each sees its own snapshot, so live values (slot usage, running tasks)
// read by one query may not match those of the next: to plan, read inside
// InSnapshot (ReadSnapshot does).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// TxBeginner begins transactions: a pool or a connection. A transaction is
// not one: a snapshot needs a transaction of its own.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// SnapshotOptions are the options of InSnapshot's transaction: REPEATABLE
// READ, so every query sees the snapshot taken by the first, and READ ONLY.
var SnapshotOptions = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// InSnapshot runs fn in a transaction of its own (SnapshotOptions), so that
// everything fn reads through q comes from one snapshot of the database:
// the usage of a slot group and the running tasks holding it, the tables
// and the live values beside them. The snapshot is taken by fn's first
// query; the transaction ends when fn returns.
func InSnapshot(ctx context.Context, db TxBeginner, fn func(q Querier) error) error {
	return InSnapshotWithin(ctx, db, 0, fn)
}

// ErrBeginTimeout means the snapshot's transaction could not begin within
// the time InSnapshotWithin was given: no connection answered.
var ErrBeginTimeout = errors.New("no connection began the read-only snapshot in time")

// InSnapshotWithin is InSnapshot with the transaction's BEGIN bounded by
// beginTimeout (0: unbounded), failing with ErrBeginTimeout: a caller that
// holds a transaction on another connection of db (behind a pooler with
// one server connection, the BEGIN waits for it) does not wait forever.
func InSnapshotWithin(ctx context.Context, db TxBeginner, beginTimeout time.Duration, fn func(q Querier) error) error {
	beginCtx := ctx
	if beginTimeout > 0 {
		var cancel context.CancelFunc
		beginCtx, cancel = context.WithTimeout(ctx, beginTimeout)
		defer cancel()
	}
	tx, err := db.BeginTx(beginCtx, SnapshotOptions)
	switch {
	case err != nil && beginCtx.Err() != nil && ctx.Err() == nil:
		return fmt.Errorf("%w (%s)", ErrBeginTimeout, beginTimeout)
	case err != nil:
		return fmt.Errorf("beginning a read-only snapshot: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("ending the read-only snapshot: %w", err)
	}
	return nil
}

// ReadSnapshot is ReadFor in one snapshot (InSnapshot): the state to plan
// against, with every live value consistent with every other.
func ReadSnapshot(ctx context.Context, db TxBeginner, schema string, desired catalog.State) (catalog.State, int, error) {
	var s catalog.State
	var version int
	err := InSnapshot(ctx, db, func(q Querier) error {
		var err error
		s, version, err = ReadFor(ctx, q, schema, desired)
		return err
	})
	return s, version, err
}

// ReadFor returns the actual state of schema for planning against desired:
// Read, then ReadLiveFor. Its queries see one snapshot only when db is a
// REPEATABLE READ transaction (see InSnapshot).
func ReadFor(ctx context.Context, db Querier, schema string, desired catalog.State) (catalog.State, int, error) {
	s, version, err := Read(ctx, db, schema)
	if err != nil {
		return s, version, err
	}
	return s, version, ReadLiveFor(ctx, db, schema, version, desired, &s)
}

// ReadLiveFor adds to s, the actual state Read returned with version, the
// live values planning against desired needs besides those Read reads:
// Live.Unfinished for the queues desired no longer declares (a plan would
// delete them), Live.Attach for the counters an apply would attach with
// a backfill, and Live.Access for the roles desired names that pgseq does
// not manage yet. Only those are counted, since counting scans the queue's
// pending tasks or the counter's table.
func ReadLiveFor(ctx context.Context, db Querier, schema string, version int, desired catalog.State, s *catalog.State) error {
	var err error
	if gone := QueuesNotIn(desired, *s); len(gone) > 0 && version > 0 {
		if s.Live.Unfinished, err = readUnfinished(ctx, db, schema, gone); err != nil {
			return fmt.Errorf("counting unfinished tasks: %w", err)
		}
	}
	if s.Live.Attach, err = readAttachFacts(ctx, db, desired.Counters, s.Counters); err != nil {
		return err
	}
	return readAccessFor(ctx, db, schema, desired, s)
}

// Read returns the actual state of schema and its migration version: the
// managed state (ReadManaged) with the live values beside it (running tasks
// per type, partition keys per type by units in use, counters' issued
// values), and the access levels pgseq granted
// with what those roles hold (Access, Live.Access). A schema that does not exist (or has
// no pgseq tables yet) reads as an empty state with version 0.
func Read(ctx context.Context, db Querier, schema string) (catalog.State, int, error) {
	s, version, err := ReadManaged(ctx, db, schema)
	if err != nil || version == 0 {
		return s, version, err
	}
	if s.Live.Running, err = readRunning(ctx, db, schema); err != nil {
		return s, version, fmt.Errorf("counting running tasks: %w", err)
	}
	if version >= PartitionsVersion {
		if s.Live.Keys, err = readKeys(ctx, db, schema); err != nil {
			return s, version, fmt.Errorf("counting partition keys: %w", err)
		}
	}
	if version >= 3 {
		if err := readCounterValues(ctx, db, schema, s.Live.Counters); err != nil {
			return s, version, fmt.Errorf("reading counter values: %w", err)
		}
	}
	if version >= AccessVersion {
		if err := readAccess(ctx, db, schema, &s); err != nil {
			return s, version, err
		}
	}
	return s, version, nil
}

// ReadManaged returns the managed state of schema and its migration version:
// queues, task types, slot groups (with their usage), counters, and in
// Live.Counters whether each attached counter's trigger and unique index are
// intact — but no counts (running tasks, issued values), so it reads no
// table that grows with use. It is what an apply records as the state it
// left (EncodeApplied). A schema that does not exist reads as an empty
// state with version 0.
func ReadManaged(ctx context.Context, db Querier, schema string) (catalog.State, int, error) {
	var s catalog.State
	version, err := migrations.Version(ctx, db, schema)
	if err != nil {
		return s, 0, err
	}
	if version == 0 {
		return s, 0, nil
	}
	if version > migrations.Latest() {
		return s, version, fmt.Errorf("%w: schema %q is at version %d, this pgseq knows up to %d; upgrade pgseq",
			migrations.ErrNewerSchema, schema, version, migrations.Latest())
	}
	if s.Queues, err = readQueues(ctx, db, schema); err != nil {
		return s, version, fmt.Errorf("reading queues: %w", err)
	}
	if s.TaskTypes, err = readTaskTypes(ctx, db, schema, version); err != nil {
		return s, version, fmt.Errorf("reading task types: %w", err)
	}
	if s.Slots, err = readSlots(ctx, db, schema); err != nil {
		return s, version, fmt.Errorf("reading slot groups: %w", err)
	}
	if version >= 3 {
		if s.Counters, err = readCounters(ctx, db, schema); err != nil {
			return s, version, fmt.Errorf("reading counters: %w", err)
		}
		if s.Live.Counters, err = readCounterHealth(ctx, db, schema, s.Counters); err != nil {
			return s, version, fmt.Errorf("checking counter triggers and indexes: %w", err)
		}
	}
	return s, version, nil
}

// QueuesNotIn returns the names of actual queues absent from desired: the
// queues a plan would delete, whose unfinished tasks must be counted.
func QueuesNotIn(desired, actual catalog.State) []string {
	want := make(map[string]bool, len(desired.Queues))
	for _, q := range desired.Queues {
		want[q.Name] = true
	}
	var out []string
	for _, q := range actual.Queues {
		if !want[q.Name] {
			out = append(out, q.Name)
		}
	}
	return out
}

func micros(us int64) catalog.Duration { return catalog.Duration(time.Duration(us) * time.Microsecond) }

func readQueues(ctx context.Context, db Querier, schema string) ([]catalog.Queue, error) {
	rows, err := db.Query(ctx, query("queues", schema))
	if err != nil {
		return nil, err
	}
	var out []catalog.Queue
	var bi, bm, wt, ll, rc, rd int64
	var q catalog.Queue
	_, err = pgx.ForEachRow(rows, []any{&q.Name, &q.BatchSize, &q.MaxRetries, &bi, &bm,
		&q.Backoff.Factor, &q.Backoff.Jitter, &wt, &ll, &rc, &rd}, func() error {
		q.Backoff.Initial, q.Backoff.Max = micros(bi), micros(bm)
		q.WorkerTimeout, q.LeaderLease = micros(wt), micros(ll)
		q.Retention.Completed, q.Retention.DeadLetter = micros(rc), micros(rd)
		out = append(out, q)
		return nil
	})
	return out, err
}

// PartitionsVersion is the schema version whose task types have per-key
// limits (migration 019).
const PartitionsVersion = 19

func readTaskTypes(ctx context.Context, db Querier, schema string, version int) ([]catalog.TaskType, error) {
	name := "task_types"
	if version < PartitionsVersion {
		name = "task_types_before_partitions"
	}
	rows, err := db.Query(ctx, query(name, schema))
	if err != nil {
		return nil, err
	}
	var out []catalog.TaskType
	var t catalog.TaskType
	var retries, perKey *int
	var by *string
	_, err = pgx.ForEachRow(rows, []any{&t.Name, &t.Queue, &t.Concurrency, &retries, &t.Priority, &perKey, &by}, func() error {
		t.MaxRetries, t.Partition = nil, nil
		if retries != nil {
			v := *retries
			t.MaxRetries = &v
		}
		if perKey != nil {
			t.Partition = &catalog.Partition{Concurrency: *perKey}
			if by != nil {
				t.Partition.By = *by
			}
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// readSlots reads the slot groups as runs (catalog.SlotRun): one row per
// task type from the server, made into runs here.
func readSlots(ctx context.Context, db Querier, schema string) ([]catalog.SlotRun, error) {
	rows, err := db.Query(ctx, query("slots", schema))
	if err != nil {
		return nil, err
	}
	var out []catalog.SlotRun
	var name string
	var groups, capacities, used []int32
	_, err = pgx.ForEachRow(rows, []any{&name, &groups, &capacities, &used}, func() error {
		var err error
		out, err = appendRuns(out, name, groups, capacities, used)
		return err
	})
	return out, err
}

// appendRuns appends to out the runs of one task type's groups, given as
// parallel arrays (in group order, or sorted here).
func appendRuns(out []catalog.SlotRun, name string, groups, capacities, used []int32) ([]catalog.SlotRun, error) {
	if len(capacities) != len(groups) || len(used) != len(groups) {
		return out, fmt.Errorf("slot groups of %q: %d groups, %d capacities, %d uses", name, len(groups), len(capacities), len(used))
	}
	if !slices.IsSorted(groups) {
		order := make([]int, len(groups))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return int(groups[a] - groups[b]) })
		groups, capacities, used = permute(groups, order), permute(capacities, order), permute(used, order)
	}
	for i, g := range groups {
		out = catalog.AppendRun(out, catalog.SlotGroup{TaskType: name, Group: int(g), Capacity: int(capacities[i]), Used: int(used[i])})
	}
	return out, nil
}

// permute returns xs in the order of the indexes in order.
func permute(xs []int32, order []int) []int32 {
	out := make([]int32, len(xs))
	for i, j := range order {
		out[i] = xs[j]
	}
	return out
}

func readRunning(ctx context.Context, db Querier, schema string) (map[string]int, error) {
	rows, err := db.Query(ctx, query("running", schema))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var name string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&name, &n}, func() error {
		out[name] = n
		return nil
	})
	return out, err
}

// readKeys reads the partition keys with work per task type, by units in
// use (catalog.Live.Keys): nil when no key has work.
func readKeys(ctx context.Context, db Querier, schema string) (map[string]catalog.KeyUses, error) {
	rows, err := db.Query(ctx, query("partition_keys", schema))
	if err != nil {
		return nil, err
	}
	var out map[string]catalog.KeyUses
	var name string
	var u catalog.KeyUse
	_, err = pgx.ForEachRow(rows, []any{&name, &u.Used, &u.Keys}, func() error {
		if out == nil {
			out = map[string]catalog.KeyUses{}
		}
		out[name] = append(out[name], u)
		return nil
	})
	return out, err
}

func readUnfinished(ctx context.Context, db Querier, schema string, queues []string) (map[string]int64, error) {
	rows, err := db.Query(ctx, query("unfinished", schema), queues)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	var name string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&name, &n}, func() error {
		out[name] = n
		return nil
	})
	return out, err
}

func readCounters(ctx context.Context, db Querier, schema string) ([]catalog.Counter, error) {
	rows, err := db.Query(ctx, query("counters", schema))
	if err != nil {
		return nil, err
	}
	var out []catalog.Counter
	var c catalog.Counter
	var prefixTable, prefixColumn *string
	var lockUS, windowUS int64
	_, err = pgx.ForEachRow(rows, []any{&c.Name, &c.Table, &c.Column, &c.Scope, &c.Prefix,
		&prefixTable, &prefixColumn, &c.Start, &lockUS, &c.Strategy, &windowUS}, func() error {
		k := c
		k.Scope = append([]string{}, c.Scope...)
		if len(k.Scope) == 0 {
			k.Scope = nil
		}
		k.LockTimeout, k.IdempotencyWindow = micros(lockUS), micros(windowUS)
		if prefixTable != nil && prefixColumn != nil {
			k.PrefixFrom = &catalog.PrefixSource{Table: *prefixTable, Column: *prefixColumn}
		}
		out = append(out, k)
		return nil
	})
	return out, err
}

// readCounterHealth returns, for each counter, whether its trigger and
// unique index are intact (always for a standalone counter, which has none).
func readCounterHealth(ctx context.Context, db Querier, schema string, counters []catalog.Counter) (map[string]catalog.CounterLive, error) {
	live := make(map[string]catalog.CounterLive, len(counters))
	for _, c := range counters {
		live[c.Name] = catalog.CounterLive{TriggerOK: true, IndexOK: true}
	}
	var names, tables, triggers, cols []string
	for _, c := range counters {
		if !c.Attached() {
			continue
		}
		b, _ := json.Marshal(append(append([]string{}, c.Scope...), c.Column))
		names = append(names, c.Name)
		tables = append(tables, c.Table)
		triggers = append(triggers, catalog.ObjectsFor(schema, c.Name).Trigger)
		cols = append(cols, string(b))
	}
	if len(names) == 0 {
		return live, nil
	}
	rows, err := db.Query(ctx, query("counter_health", schema), names, tables, triggers, cols, catalog.TriggerVersion)
	if err != nil {
		return nil, err
	}
	var name string
	var trig, idx bool
	_, err = pgx.ForEachRow(rows, []any{&name, &trig, &idx}, func() error {
		l := live[name]
		l.TriggerOK, l.IndexOK = trig, idx
		live[name] = l
		return nil
	})
	return live, err
}

// readCounterValues adds to live (from readCounterHealth) how many scopes
// each counter has numbered and the highest value it issued.
func readCounterValues(ctx context.Context, db Querier, schema string, live map[string]catalog.CounterLive) error {
	rows, err := db.Query(ctx, query("counter_values", schema))
	if err != nil {
		return err
	}
	var name string
	var scopes, maxValue int64
	_, err = pgx.ForEachRow(rows, []any{&name, &scopes, &maxValue}, func() error {
		l := live[name]
		l.Scopes, l.MaxValue = scopes, maxValue
		live[name] = l
		return nil
	})
	return err
}
