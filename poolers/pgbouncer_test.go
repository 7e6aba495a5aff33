// Package poolers_test runs pgseq behind a real PgBouncer (Debian's
// pgbouncer, started by the test on 127.0.0.1 in front of the test
// database), in transaction and session pooling: plan, apply, status, the
// Go client and a worker draining a limited type, and an apply reaching
// the worker.
package poolers_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/queue"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/status"
)

// poolTo connects to url with pgx's query mode mode and at most conns
// connections.
func poolTo(t *testing.T, url string, mode pgx.QueryExecMode, conns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.MaxConns = conns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

func TestBehindPgBouncer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode       string
		serverSize int
		exec       pgx.QueryExecMode
		pollOnly   bool
	}{
		// Transaction pooling: no prepared statements kept (PgBouncer
		// 1.18), no LISTEN: exec mode and a polling worker, as
		// docs/connecting.md says. 8 client connections share 4 server connections.
		{"transaction", 4, pgx.QueryExecModeExec, true},
		// Session pooling: everything as on a direct connection; each
		// client connection holds a server connection for its life, so
		// the pooler's pool fits the client pool and the listener.
		{"session", 10, pgx.QueryExecModeCacheStatement, false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			url := pgtest.PgBouncer(t, tc.mode, tc.serverSize)
			pool := poolTo(t, url, tc.exec, 8)
			schema := pgtest.Schema(t)
			ctx := context.Background()
			q := catalog.DefaultQueue("default")
			q.BatchSize = 5
			cfg := catalog.State{Queues: []catalog.Queue{q},
				TaskTypes: []catalog.TaskType{{Name: "render", Queue: "default", Concurrency: 3}}}
			opts := applier.Options{Client: "test", Version: "test"}

			_, err := reconcile.PlanAndApply(ctx, pool, schema, cfg, opts, nil)
			require.NoError(t, err, "apply")
			p, err := reconcile.Plan(ctx, pool, schema, cfg)
			require.NoError(t, err, "plan")
			require.True(t, p.Empty())
			_, err = status.Read(ctx, pool, schema, status.Options{})
			require.NoError(t, err, "status")

			const n = 300
			tasks := make([]queue.NewTask, n)
			for i := range tasks {
				tasks[i].Type = "render"
			}
			_, err = queue.NewClient(pool, schema).EnqueueBatch(ctx, tasks)
			require.NoError(t, err, "enqueue")

			w, err := queue.NewWorker(queue.Config{
				Pool: pool, Schema: schema, PoolSize: 4, PollInterval: 10 * time.Millisecond,
				PollOnly: tc.pollOnly, SettingsInterval: 200 * time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
				Handlers: map[string]queue.Handler{"render": func(context.Context, *queue.Task) error {
					time.Sleep(time.Millisecond)
					return nil
				}},
			})
			require.NoError(t, err)
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- w.Run(runCtx) }()
			t.Cleanup(stop) // a failed check must not leave it running

			maxRunning := 0
			through := &pgseqtest.DB{T: t, Pool: pool, Schema: schema} // through PgBouncer
			count := func(sql string) int {
				var c int
				through.Scalar(&c, sql)
				return c
			}
			drained := func() bool {
				maxRunning = max(maxRunning, count(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'running'`))
				return count(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`) == n
			}
			if !assert.Eventually(t, drained, 30*time.Second, 2*time.Millisecond) {
				t.Fatalf("the worker did not drain the queue: %d completed, %d running, %d pending",
					count(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`),
					count(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'running'`),
					count(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending'`))
			}
			require.LessOrEqual(t, maxRunning, 3, "running never above the limit")

			cfg.Queues[0].BatchSize = 7
			_, err = reconcile.PlanAndApply(ctx, pool, schema, cfg, opts, nil)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return w.Settings().BatchSize == 7 }, 10*time.Second, 10*time.Millisecond,
				"the apply reaches the worker")
			stop()
			require.NoError(t, <-done)
			require.Zero(t, count(`SELECT count(*) FROM {{schema}}.workers`), "the worker unregistered")
		})
	}
}

// Transaction pooling with one server connection: the Go client, a worker,
// plan and status work (one transaction at a time), and an apply, which holds the
// apply lock on one connection while it reads on a second, fails within
// its lock timeout saying what the pool needs, instead of waiting for
// PgBouncer's query_wait_timeout (two minutes). Nothing is applied.
func TestBehindPgBouncerWithOneServerConnection(t *testing.T) {
	t.Parallel()
	url := pgtest.PgBouncer(t, "transaction", 1)
	pool := poolTo(t, url, pgx.QueryExecModeExec, 4)
	schema := pgtest.Schema(t)
	ctx := context.Background()
	q := catalog.DefaultQueue("default")
	cfg := catalog.State{Queues: []catalog.Queue{q},
		TaskTypes: []catalog.TaskType{{Name: "render", Queue: "default", Concurrency: 2}}}
	opts := applier.Options{Client: "test", Version: "test"}
	// The schema made on a direct connection.
	_, err := reconcile.PlanAndApply(ctx, pgtest.Pool(t), schema, cfg, opts, nil)
	require.NoError(t, err)

	p, err := reconcile.Plan(ctx, pool, schema, cfg)
	require.NoError(t, err, "plan")
	require.True(t, p.Empty())
	_, err = status.Read(ctx, pool, schema, status.Options{})
	require.NoError(t, err, "status")
	ids, err := queue.NewClient(pool, schema).EnqueueBatch(ctx, []queue.NewTask{{Type: "render"}, {Type: "render"}, {Type: "render"}})
	require.NoError(t, err, "enqueue")
	require.Len(t, ids, 3)

	// A worker drains them, its calls one at a time on the one server
	// connection.
	w, err := queue.NewWorker(queue.Config{
		Pool: pool, Schema: schema, PoolSize: 2, PollInterval: 10 * time.Millisecond, PollOnly: true,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Handlers: map[string]queue.Handler{"render": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	t.Cleanup(stop)
	through := &pgseqtest.DB{T: t, Pool: pool, Schema: schema} // through PgBouncer
	completed := func() bool {
		var n int
		through.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`)
		return n == 3
	}
	require.Eventually(t, completed, 30*time.Second, 10*time.Millisecond, "the worker drains the queue")
	stop()
	require.NoError(t, <-done)

	cfg.TaskTypes[0].Concurrency = 5
	opts.LockTimeout = time.Second
	start := time.Now()
	_, err = reconcile.PlanAndApply(ctx, pool, schema, cfg, opts, nil)
	require.ErrorIs(t, err, applier.ErrNoSecondConnection)
	require.ErrorContains(t, err, "the pool needs at least 2 server connections for an apply")
	require.Less(t, time.Since(start), 30*time.Second, "it fails within about its lock timeout")
	p, err = reconcile.Plan(ctx, pool, schema, cfg)
	require.NoError(t, err)
	require.Equal(t, 1, p.Summary.Change, "nothing was applied")
}
