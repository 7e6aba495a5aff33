package queue_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/queue"
)

// schemaAt makes a schema as the pgseq of migration version left it.
func schemaAt(t *testing.T, version int) *pgseqtest.DB {
	t.Helper()
	d := pgseqtest.New(t)
	pgseqtest.MigrateTo(t, d.Pool, d.Schema, version)
	return d
}

// A worker started against a schema an older pgseq left says so, once,
// with what to run.
func TestWorkerSaysItsSchemaIsOlder(t *testing.T) {
	t.Parallel()
	older := migrations.Latest() - 1
	d := schemaAt(t, older)
	d.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries,
	    backoff_initial, backoff_max, backoff_factor, backoff_jitter, worker_timeout, leader_lease, retention_completed,
	    retention_dead_letter) VALUES ('default', 10, 3, '1s', '10m', 2, 0.2, '30s', '15s', '7 days', '30 days')`)

	var logs pgseqtest.Buffer
	w, err := queue.NewWorker(queue.Config{
		Pool: d.Pool, Schema: d.Schema, PoolSize: 1, PollInterval: 20 * time.Millisecond,
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Handlers: map[string]queue.Handler{"noop": func(context.Context, *queue.Task) error { return nil }},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = w.Run(ctx) // whatever the old schema lets it do; the warning is what counts
	want := fmt.Sprintf("is at version %d, older than this pgseq's %d: run pgseq apply", older, migrations.Latest())
	require.Contains(t, logs.String(), want)
	require.Equal(t, 1, bytes.Count([]byte(logs.String()), []byte("older than this pgseq's")), "said once")
}

// An enqueue into a schema that lacks the function says why.
func TestEnqueueIntoAnOldSchemaSaysWhy(t *testing.T) {
	t.Parallel()
	d := schemaAt(t, 1)
	_, err := queue.NewClient(d.Pool, d.Schema).Enqueue(context.Background(), "noop", nil)
	require.ErrorContains(t, err, "does not exist")
	require.ErrorContains(t, err, fmt.Sprintf("schema %q is at version 1, older than this pgseq's %d: run pgseq apply (or pgseq migrate)", d.Schema, migrations.Latest()))
}
