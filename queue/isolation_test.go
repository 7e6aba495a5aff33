package queue_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/queue"
)

// A pool whose sessions default to SERIALIZABLE (a role or database
// setting of default_transaction_isolation): the workers say once that
// they run each call in a READ COMMITTED transaction of its own, and then
// drain a limited type and an unlimited one with nothing else to say — no
// serialization failure (40001) logged and retried, the limit held.
func TestWorkersUnderASerializableDefaultDrainWithoutErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "limited", Concurrency: 3}, catalog.TaskType{Name: "free"}))
	pc := e.Pool.Config().Copy()
	pc.ConnConfig.RuntimeParams["default_transaction_isolation"] = "serializable"
	pc.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	var level string
	require.NoError(t, pool.QueryRow(context.Background(), `SHOW default_transaction_isolation`).Scan(&level))
	require.Equal(t, "serializable", level)

	const n = 400
	e.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY(SELECT CASE WHEN g % 2 = 0 THEN 'limited' ELSE 'free' END FROM generate_series(1, $1) g))`, n)
	var logs pgseqtest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var stops []func() error
	for range 2 {
		w, err := queue.NewWorker(queue.Config{
			Pool: pool, Schema: e.Schema, PoolSize: 4, PollInterval: 5 * time.Millisecond, Logger: logger,
			Handlers: map[string]queue.Handler{
				"limited": func(context.Context, *queue.Task) error { time.Sleep(time.Millisecond); return nil },
				"free":    func(context.Context, *queue.Task) error { return nil },
			},
		})
		require.NoError(t, err)
		stops = append(stops, run(t, w))
	}
	maxRunning := 0
	require.Eventually(t, func() bool {
		var running, done int
		e.Row(`SELECT count(*) FILTER (WHERE type = 'limited' AND status = 'running'), count(*) FILTER (WHERE status = 'completed')
		         FROM {{schema}}.tasks`, nil, &running, &done)
		maxRunning = max(maxRunning, running)
		return done == n
	}, 60*time.Second, 2*time.Millisecond, "the workers drain the queue")
	for _, stop := range stops {
		require.NoError(t, stop())
	}
	require.LessOrEqual(t, maxRunning, 3, "the limit held")

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2, "one note per worker, nothing else:\n%s", logs.String())
	for _, l := range lines {
		require.Contains(t, l, "runs each of them in a read committed transaction of its own")
	}
	require.NotContains(t, logs.String(), "40001")
}
