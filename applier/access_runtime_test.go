package applier_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/queue"
)

// runtimeAccess is one test's schema with a worker role and an
// enqueue-only role, and a pool connected as each.
type runtimeAccess struct {
	*env
	worker, enqueuer         testRole
	workerPool, enqueuerPool *pgxpool.Pool
}

// runtimeConfig: an unlimited type, a limited one, one whose first attempt
// fails, and a standalone counter; the worker role may work, the enqueuer
// only enqueue.
func runtimeConfig(worker, enqueuer string) catalog.State {
	q := catalog.DefaultQueue("default")
	q.Backoff.Initial = catalog.Duration(time.Millisecond)
	q.Backoff.Max = catalog.Duration(time.Millisecond)
	q.Backoff.Jitter = 0
	return catalog.State{
		Queues: []catalog.Queue{q},
		TaskTypes: []catalog.TaskType{
			{Name: "a", Queue: "default"},
			{Name: "b", Queue: "default", Concurrency: 3},
			{Name: "flaky", Queue: "default", Concurrency: 2},
		},
		Counters: []catalog.Counter{{Name: "invoice", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout}},
		Access: []catalog.Grant{
			{Level: catalog.LevelWork, Role: worker},
			{Level: catalog.LevelEnqueue, Role: enqueuer},
		},
	}
}

func newRuntimeAccess(t *testing.T) *runtimeAccess {
	t.Helper()
	e := newEnv(t)
	r := &runtimeAccess{env: e, worker: e.newRole("worker"), enqueuer: e.newRole("enqueuer")}
	e.apply(runtimeConfig(r.worker.Name, r.enqueuer.Name))
	e.Exec(`SELECT {{schema}}.next_value('invoice')`)
	r.workerPool = poolAs(t, r.worker)
	r.enqueuerPool = poolAs(t, r.enqueuer)
	return r
}

// contents is everything the runtime's tables hold, as the owner reads it:
// a failed call must leave it as it was.
func (r *runtimeAccess) contents() string {
	r.T.Helper()
	var s string
	err := r.Pool.QueryRow(r.ctx(), r.SQL(`SELECT concat_ws(' | ',
		(SELECT string_agg(format('%s/%s/%s/%s', t.id, t.status, t.worker_id, t.slot_group), ',' ORDER BY t.id) FROM {{schema}}.tasks t),
		(SELECT string_agg(format('%s/%s/%s/%s', s.task_type, s.slot_group, s.capacity, s.used), ',' ORDER BY s.task_type, s.slot_group) FROM {{schema}}.concurrency_slots s),
		(SELECT string_agg(format('%s/%s/%s', c.counter, c.scope, c.value), ',' ORDER BY c.counter, c.scope) FROM {{schema}}.counter_values c),
		(SELECT string_agg(format('%s/%s', q.name, q.batch_size), ',' ORDER BY q.name) FROM {{schema}}.queues q),
		(SELECT string_agg(format('%s/%s/%s', tt.name, tt.concurrency, tt.draining), ',' ORDER BY tt.name) FROM {{schema}}.task_types tt),
		(SELECT string_agg(format('%s/%s', w.id, w.dead_at IS NULL), ',' ORDER BY w.id) FROM {{schema}}.workers w),
		(SELECT string_agg(format('%s', l.worker_id), ',') FROM {{schema}}.leader l))`)).Scan(&s)
	require.NoError(r.T, err)
	return s
}

// refused runs sql (with {{schema}} rendered) on db and requires that it
// fails with SQLSTATE code and changes nothing.
func (r *runtimeAccess) refused(db *pgxpool.Pool, code, sql string, args ...any) {
	r.T.Helper()
	before := r.contents()
	_, err := db.Exec(r.ctx(), r.SQL(sql), args...)
	var pgErr *pgconn.PgError
	require.True(r.T, errors.As(err, &pgErr), "%s: want SQLSTATE %s, got %v", sql, code, err)
	require.Equal(r.T, code, pgErr.Code, "%s: %s", sql, pgErr.Message)
	require.Equal(r.T, before, r.contents(), "%s changed something", sql)
}

const insufficientPrivilege = "42501"

// A role with only worker rights drains a queue — limited types, retries,
// leader maintenance, graceful release — through the runtime functions
// alone, and every table write of its own is refused.
func TestWorkerRoleDrainsAndCannotWriteTables(t *testing.T) {
	t.Parallel()
	r := newRuntimeAccess(t)
	ctx := r.ctx()

	// The enqueue-only role enqueues.
	client := queue.NewClient(r.enqueuerPool, r.Schema)
	const n = 600
	batch := make([]queue.NewTask, n)
	for i := range batch {
		batch[i] = queue.NewTask{Type: []string{"a", "b", "flaky"}[i%3], Payload: map[string]int{"i": i}}
	}
	ids, err := client.EnqueueBatch(ctx, batch)
	require.NoError(t, err)
	require.Len(t, ids, n)
	id, err := client.Enqueue(ctx, "a", nil, queue.WithIdempotencyKey("once"))
	require.NoError(t, err)
	again, err := client.Enqueue(ctx, "a", nil, queue.WithIdempotencyKey("once"))
	require.NoError(t, err)
	require.Equal(t, id, again)

	// The worker role drains them.
	var log pgseqtest.Buffer
	var ran sync.Map
	var runningB, maxB atomic.Int64
	handler := func(ctx context.Context, task *queue.Task) error {
		if task.Type == "flaky" && task.Attempts == 1 {
			return errors.New("first attempt fails")
		}
		if task.Type == "b" {
			now := runningB.Add(1)
			defer runningB.Add(-1)
			for {
				m := maxB.Load()
				if now <= m || maxB.CompareAndSwap(m, now) {
					break
				}
			}
		}
		ran.Store(task.ID, true)
		return nil
	}
	w, err := queue.NewWorker(queue.Config{
		Pool: r.workerPool, Schema: r.Schema, PoolSize: 6, BatchSize: 25,
		Handlers:            map[string]queue.Handler{"a": handler, "b": handler, "flaky": handler},
		MaintenanceInterval: 20 * time.Millisecond, HeartbeatInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return errors.New("worker did not stop within 30s")
		}
	}
	t.Cleanup(func() { _ = stop() })

	completed := func() int {
		var c int
		r.Scalar(&c, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`)
		return c
	}
	require.Eventually(t, func() bool { return completed() == n+1 }, time.Minute, 10*time.Millisecond,
		"drain as the worker role: %d of %d completed; worker log:\n%s", completed(), n+1, log.String())
	// The leader ran its maintenance as the worker role too.
	require.Eventually(t, func() bool {
		var leader *string
		r.Scalar(&leader, `SELECT worker_id FROM {{schema}}.leader`)
		return leader != nil && *leader == w.ID()
	}, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, stop())
	require.NotContains(t, log.String(), "permission denied", "worker log:\n%s", log.String())
	require.NotContains(t, log.String(), "maintenance failed", "worker log:\n%s", log.String())
	require.LessOrEqual(t, maxB.Load(), int64(3), "the limit of b holds")
	for _, id := range ids {
		_, ok := ran.Load(id)
		require.True(t, ok, "task %d ran", id)
	}
	var used int
	r.Scalar(&used, `SELECT coalesce(sum(used), 0) FROM {{schema}}.concurrency_slots`)
	require.Zero(t, used, "every unit given back")

	// Maintenance called directly, as the leader: works.
	wp := r.workerPool
	r.On(wp).Exec(`SELECT {{schema}}.register_worker('leader-1', 'host', 1)`)
	r.Exec(`UPDATE {{schema}}.leader SET lease_until = '-infinity'`)
	var elected bool
	r.On(wp).Scalar(&elected, `SELECT {{schema}}.elect_leader('leader-1')`)
	require.True(t, elected)
	r.On(wp).Exec(`SELECT {{schema}}.run_maintenance('leader-1')`)

	// Now what the worker role may not do. A task of another worker, and
	// a worker of this role that is not the leader.
	r.Exec(`SELECT {{schema}}.register_worker('other', 'host', 1)`)
	r.Exec(`SELECT {{schema}}.enqueue('a')`)
	r.Exec(`SELECT count(*) FROM {{schema}}.claim('default', 'other', 1)`)
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 hour' WHERE id = 'other'`)
	var otherTask int64
	r.Scalar(&otherTask, `SELECT id FROM {{schema}}.tasks WHERE worker_id = 'other'`)
	r.On(wp).Exec(`SELECT {{schema}}.register_worker('not-leader', 'host', 1)`)

	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.concurrency_slots SET capacity = capacity + 100`)
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.concurrency_slots SET used = 0`)
	r.refused(wp, insufficientPrivilege, `INSERT INTO {{schema}}.tasks (queue, type) VALUES ('default', 'a')`)
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.tasks SET status = 'completed' WHERE id = $1`, otherTask)
	r.refused(wp, insufficientPrivilege, `DELETE FROM {{schema}}.tasks`)
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.task_types SET concurrency = 1000`)
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.queues SET batch_size = 1`)
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.leader SET worker_id = 'not-leader', lease_until = 'infinity'`)
	// Maintenance when not the leader: refused by the runtime (PS003, the
	// code the Go worker reads as "lease lost"), and the dead worker's task
	// is not recovered.
	r.refused(wp, queue.CodeNotLeader, `SELECT {{schema}}.run_maintenance('not-leader')`)
	// Counters: no write, no call.
	r.refused(wp, insufficientPrivilege, `UPDATE {{schema}}.counter_values SET value = value + 10`)
	r.refused(wp, insufficientPrivilege, `INSERT INTO {{schema}}.counter_values (counter, scope, value) VALUES ('invoice', 'x', 1)`)
	r.refused(wp, insufficientPrivilege, `SELECT {{schema}}.next_value('invoice')`)
	r.refused(wp, insufficientPrivilege, `SELECT {{schema}}.reserve('invoice', '', 'k')`)
	// Reading: not the tasks, workers or leader of this schema (they would
	// tell another worker's id), nor anything of another schema.
	r.refused(wp, insufficientPrivilege, `SELECT * FROM {{schema}}.tasks`)
	r.refused(wp, insufficientPrivilege, `SELECT * FROM {{schema}}.workers`)
	r.refused(wp, insufficientPrivilege, `SELECT * FROM {{schema}}.leader`)
	r.refused(wp, insufficientPrivilege, `SELECT * FROM {{schema}}.counter_values`)
	other := r.otherSchema()
	r.refused(wp, insufficientPrivilege, fmt.Sprintf(`SELECT * FROM %s.tasks`, other))
	r.refused(wp, insufficientPrivilege, fmt.Sprintf(`SELECT * FROM %s.app_secrets`, other))
	r.refused(wp, insufficientPrivilege, fmt.Sprintf(`SELECT count(*) FROM %s.claim('default', 'x', 1)`, other))
	// Enqueueing is another level.
	r.refused(wp, insufficientPrivilege, `SELECT {{schema}}.enqueue('a')`)

	// Fenced by worker id, as before: completing, failing or releasing a
	// task the caller does not own changes nothing.
	for _, call := range []string{
		`SELECT {{schema}}.complete(ARRAY[$1::bigint], 'not-leader')`,
		`SELECT {{schema}}.fail($1, 'not-leader', 'boom')`,
		`SELECT {{schema}}.release(ARRAY[$1::bigint], 'not-leader')`,
		`SELECT count(*) FROM {{schema}}.complete_and_take(ARRAY[$1::bigint], 'not-leader')`,
	} {
		before := r.contents()
		_, err := wp.Exec(ctx, r.SQL(call), otherTask)
		require.NoError(t, err, call)
		require.Equal(t, before, r.contents(), "%s changed something", call)
	}
}

// otherSchema migrates a second pgseq schema with an application table in
// it, and grants the test's roles nothing there. It returns its quoted name.
func (r *runtimeAccess) otherSchema() string {
	r.T.Helper()
	name := pgtest.Schema(r.T)
	_, err := applier.Migrate(r.ctx(), r.Pool, name, 0)
	require.NoError(r.T, err)
	quoted := migrations.Render("{{schema}}", name)
	_, err = r.Pool.Exec(r.ctx(), "CREATE TABLE "+quoted+".app_secrets (secret text); INSERT INTO "+quoted+".app_secrets VALUES ('s')")
	require.NoError(r.T, err)
	return quoted
}

// An enqueue-only role can enqueue and nothing else.
func TestEnqueueRoleCanOnlyEnqueue(t *testing.T) {
	t.Parallel()
	r := newRuntimeAccess(t)
	ep := r.enqueuerPool
	client := queue.NewClient(ep, r.Schema)
	_, err := client.Enqueue(r.ctx(), "b", map[string]string{"x": "y"})
	require.NoError(t, err)
	_, err = client.Enqueue(r.ctx(), "nope", nil)
	require.ErrorIs(t, err, queue.ErrUnknownTaskType, "the runtime's own errors come through")

	r.refused(ep, insufficientPrivilege, `SELECT {{schema}}.register_worker('w', 'host', 1)`)
	r.refused(ep, insufficientPrivilege, `SELECT count(*) FROM {{schema}}.claim('default', 'w', 10)`)
	r.refused(ep, insufficientPrivilege, `SELECT {{schema}}.complete(ARRAY[1::bigint], 'w')`)
	r.refused(ep, insufficientPrivilege, `SELECT {{schema}}.run_maintenance('w')`)
	r.refused(ep, insufficientPrivilege, `SELECT * FROM {{schema}}.concurrency_slots`)
	r.refused(ep, insufficientPrivilege, `SELECT * FROM {{schema}}.tasks`)
	r.refused(ep, insufficientPrivilege, `SELECT * FROM {{schema}}.task_types`)
	r.refused(ep, insufficientPrivilege, `INSERT INTO {{schema}}.tasks (queue, type) VALUES ('default', 'a')`)
	r.refused(ep, insufficientPrivilege, `UPDATE {{schema}}.concurrency_slots SET used = 0`)
	r.refused(ep, insufficientPrivilege, `SELECT {{schema}}.next_value('invoice')`)
	r.refused(ep, insufficientPrivilege, `SELECT * FROM {{schema}}.resolve_key('1')`)
}

// A role with the counters level takes numbers, reserves and commits them
// and resolves keys, and cannot write a counter value itself. A role with
// no level at all, allowed to insert into a numbered table, gets its rows
// numbered: the trigger runs as the owner.
func TestCountersRoleAndAttachedCounters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	app := pgtest.Schema(t)
	counters, inserter := e.newRole("counters"), e.newRole("inserter")
	table := migrations.Render("{{schema}}", app) + ".issues"
	_, err := e.Pool.Exec(e.ctx(), "CREATE SCHEMA "+migrations.Render("{{schema}}", app)+
		"; CREATE TABLE "+table+" (id bigserial PRIMARY KEY, seq bigint, title text)")
	require.NoError(t, err)
	q := pgx.Identifier{inserter.Name}.Sanitize()
	_, err = e.Pool.Exec(e.ctx(), "GRANT USAGE ON SCHEMA "+migrations.Render("{{schema}}", app)+" TO "+q+
		"; GRANT INSERT, SELECT ON "+table+" TO "+q+"; GRANT USAGE ON SEQUENCE "+table+"_id_seq TO "+q)
	require.NoError(t, err)

	desired := config(4)
	desired.Counters = []catalog.Counter{
		{Name: "invoice", Prefix: "INV", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout, IdempotencyWindow: catalog.Duration(time.Minute)},
		{Name: "issue", Table: app + ".issues", Column: "seq", Prefix: "ISS", Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable},
	}
	desired.Access = []catalog.Grant{{Level: catalog.LevelCounters, Role: counters.Name}}
	e.applyAccess(desired)
	r := &runtimeAccess{env: e}

	cp := poolAs(t, counters)
	var v, id, committed int64
	e.On(cp).Scalar(&v, `SELECT {{schema}}.next_value('invoice')`)
	require.Equal(t, int64(1000), v)
	e.On(cp).Scalar(&id, `SELECT {{schema}}.reserve('invoice', '', 'order-1')`)
	e.On(cp).Scalar(&committed, `SELECT {{schema}}.commit_reservation($1, 'e1')`, id)
	require.Equal(t, int64(1001), committed)
	e.On(cp).Exec(`SELECT {{schema}}.reserve('invoice', '', 'order-2')`)
	var pending int // what the Go reaper lists
	e.On(cp).Scalar(&pending, `SELECT count(*) FROM {{schema}}.reservations WHERE status = 'pending'`)
	require.Equal(t, 1, pending)
	e.On(cp).Exec(`SELECT {{schema}}.reap_reservations()`)

	ip := poolAs(t, inserter)
	var seq int64
	require.NoError(t, ip.QueryRow(e.ctx(), "INSERT INTO "+table+" (title) VALUES ('a') RETURNING seq").Scan(&seq))
	require.Equal(t, int64(1), seq)
	var counter string
	e.On(cp).Scalar(&counter, `SELECT counter FROM {{schema}}.resolve_key('iss-1')`)
	require.Equal(t, "issue", counter)

	r.refused(cp, insufficientPrivilege, `UPDATE {{schema}}.counter_values SET value = value + 10`)
	r.refused(cp, insufficientPrivilege, `DELETE FROM {{schema}}.reservations`)
	r.refused(cp, insufficientPrivilege, `SELECT {{schema}}.enqueue('render')`)
	r.refused(ip, insufficientPrivilege, `SELECT {{schema}}.next_value('invoice')`)
	r.refused(ip, insufficientPrivilege, `SELECT * FROM {{schema}}.counter_values`)
}
