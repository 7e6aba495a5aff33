package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// An enqueue that PostgreSQL aborts as a deadlock's victim is run again:
// the caller gets the task, not 40P01. The deadlock is forced: another
// session holds the tasks table against inserts, waits until the enqueue
// holds its type's lock and waits for the table, then asks for the type's
// lock exclusive (as an apply does).
func TestEnqueueRetriesADeadlockVictim(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(catalog.DefaultQueue("default"), catalog.TaskType{Name: "victim", Concurrency: 2}))
	ctx := context.Background()

	pooled, err := e.Pool.Acquire(ctx)
	require.NoError(t, err)
	// The other session is the test's own, closed (its transaction rolled
	// back) when the test ends: its deadlock_timeout must not go back to the
	// shared pool, where an enqueue of a later test would wait as long.
	other := pooled.Hijack()
	defer other.Close(ctx)
	// The other session must not be the one PostgreSQL picks (when its role
	// may set it): it checks for deadlocks long after the enqueue does.
	_, _ = other.Exec(ctx, `SET deadlock_timeout = '20s'`)
	onOther := e.On(other)
	onOther.Exec(`BEGIN`)
	onOther.Exec(`LOCK TABLE {{schema}}.tasks IN SHARE MODE`)

	type result struct {
		id  int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		id, err := e.client.Enqueue(ctx, "victim", nil)
		done <- result{id, err}
	}()
	pgseqtest.WaitBlockedBy(t, e.Pool, other.PgConn().PID())

	locked := make(chan error, 1)
	go func() {
		_, err := other.Exec(ctx, e.SQL(`SELECT {{schema}}.lock_types(ARRAY['victim'], true)`))
		locked <- err
	}()
	select {
	case err := <-locked:
		require.NoError(t, err, "the other session gets the type's lock once the enqueue is aborted")
	case <-time.After(15 * time.Second):
		t.Fatal("no deadlock was resolved within 15 s")
	}
	onOther.Exec(`COMMIT`)

	select {
	case r := <-done:
		require.NoError(t, r.err)
		require.Positive(t, r.id)
	case <-time.After(10 * time.Second):
		t.Fatal("the enqueue did not finish after the deadlock")
	}
	require.Equal(t, map[string]int{"pending": 1}, e.StatusCounts())
}
