package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/queue"
)

// The Go worker drains a partitioned type: keys given by the client
// (WithPartitionKey, EnqueueBatch) and read from the payload; no key ever
// runs more than its limit, seen from inside the handlers.
func TestWorkerKeepsPerKeyLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(),
		catalog.TaskType{Name: "render", Partition: &catalog.Partition{Concurrency: 2, By: "tenant"}}))
	ctx := context.Background()

	const n = 120
	var batch []queue.NewTask
	for i := range n / 2 {
		batch = append(batch, queue.NewTask{Type: "render", Payload: map[string]any{"i": i},
			EnqueueOptions: queue.EnqueueOptions{PartitionKey: fmt.Sprintf("t%d", i%3)}})
	}
	_, err := e.client.EnqueueBatch(ctx, batch)
	require.NoError(t, err)
	for i := range n / 4 {
		_, err := e.client.Enqueue(ctx, "render", map[string]any{"tenant": fmt.Sprintf("t%d", i%3)})
		require.NoError(t, err)
		_, err = e.client.Enqueue(ctx, "render", nil, queue.WithPartitionKey(fmt.Sprintf("t%d", i%3)))
		require.NoError(t, err)
	}
	_, err = e.client.Enqueue(ctx, "render", map[string]any{"other": 1})
	require.ErrorIs(t, err, queue.ErrPartitionKeyMissing)

	var mu sync.Mutex
	running, peak := map[string]int{}, map[string]int{}
	handler := func(ctx context.Context, task *queue.Task) error {
		var key string
		require.NoError(t, e.Pool.QueryRow(ctx, e.SQL(`SELECT partition_key FROM {{schema}}.tasks WHERE id = $1`), task.ID).Scan(&key))
		mu.Lock()
		running[key]++
		peak[key] = max(peak[key], running[key])
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running[key]--
		mu.Unlock()
		return nil
	}
	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 8, BatchSize: 20, Observer: obs,
		Handlers: map[string]queue.Handler{"render": handler},
	})
	require.NoError(t, err)
	stop := run(t, w)
	if !assert.Eventually(t, func() bool { return obs.completed.Load() == n }, 30*time.Second, 10*time.Millisecond) {
		t.Fatalf("completed %d of %d, statuses %v", obs.completed.Load(), n, e.StatusCounts())
	}
	require.NoError(t, stop())
	mu.Lock()
	defer mu.Unlock()
	for key, p := range peak {
		require.LessOrEqual(t, p, 2, "key %s ran %d at once", key, p)
	}
	require.Len(t, peak, 3)
	var rows int
	e.Scalar(&rows, `SELECT count(*) FROM {{schema}}.partition_slots`)
	require.Zero(t, rows, "every key's row goes with its last unit")
}
