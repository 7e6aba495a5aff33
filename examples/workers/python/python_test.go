// Package python_test runs the Python worker example (worker.py) against
// the test database: workers in other languages get the same guarantees
// through the SQL API as the Go worker.
package python_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/queue"
)

// python returns a Python 3 that can import psycopg (3): the first of
// python3 on PATH and Debian's /usr/bin/python3. None is a failure that
// says what to install, never a skip.
func python(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if out, err := exec.Command(path, "-c", "import psycopg").CombinedOutput(); err == nil {
			return path
		} else {
			tried = append(tried, fmt.Sprintf("%s: %s", path, strings.TrimSpace(string(out))))
		}
	}
	t.Fatalf("no Python 3 with psycopg 3 found (apt-get install python3-psycopg; .ci/run installs it):\n  %s", strings.Join(tried, "\n  "))
	return ""
}

// Three Python workers drain 2,000 tasks of a type limited to 5, handlers
// taking 2 ms: every task completes once, the limit holds at every sample
// taken from outside, and the workers leave no row behind.
func TestPythonWorkersDrainALimitedType(t *testing.T) {
	t.Parallel()
	py := python(t)
	const limit, tasks, workers = 5, 2000, 3
	q := catalog.DefaultQueue("py")
	q.WorkerTimeout = catalog.Duration(3 * time.Second)
	q.LeaderLease = catalog.Duration(3 * time.Second)
	d := pgseqtest.NewDB(t, catalog.State{
		Queues:    []catalog.Queue{q},
		TaskTypes: []catalog.TaskType{{Name: "render", Queue: "py", Concurrency: limit}, {Name: "free", Queue: "py"}},
	})
	ctx := context.Background()
	batch := make([]queue.NewTask, tasks)
	for i := range batch {
		batch[i].Type = "render"
		if i%4 == 0 {
			batch[i].Type = "free"
		}
	}
	_, err := queue.NewClient(d.Pool, d.Schema).EnqueueBatch(ctx, batch)
	require.NoError(t, err)

	// Sampled from outside while they run.
	var maxRunning atomic.Int64
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for sampleCtx.Err() == nil {
			var n int64
			if err := d.Pool.QueryRow(ctx, d.SQL(
				`SELECT count(*) FROM {{schema}}.tasks WHERE type = 'render' AND status = 'running'`)).Scan(&n); err == nil && n > maxRunning.Load() {
				maxRunning.Store(n)
			}
			time.Sleep(2 * time.Millisecond)
		}
	})

	dsn := d.Pool.Config().ConnString()
	procs := make([]*exec.Cmd, workers)
	logs := make([]*strings.Builder, workers)
	for i := range procs {
		logs[i] = &strings.Builder{}
		procs[i] = exec.Command(py, filepath.Join(".", "worker.py"), "--schema", d.Schema, "--queue", "py",
			"--batch", "10", "--handler-sleep", "0.002", "--exit-when-idle", "1")
		procs[i].Env = append(os.Environ(), "PGSEQ_DSN="+dsn)
		procs[i].Stdout, procs[i].Stderr = logs[i], logs[i]
		require.NoError(t, procs[i].Start())
	}
	done := make(chan error, workers)
	for _, p := range procs {
		go func() { done <- p.Wait() }()
	}
	deadline := time.After(2 * time.Minute)
	for i := range procs {
		select {
		case err := <-done:
			require.NoError(t, err, "a Python worker failed; its output:\n%s", joinLogs(logs))
		case <-deadline:
			for _, p := range procs {
				_ = p.Process.Kill()
			}
			t.Fatalf("the Python workers did not finish within 2 minutes (%d of %d exited); output:\n%s", i, workers, joinLogs(logs))
		}
	}
	stopSampling()
	sampler.Wait()

	var completed, used, rows int
	d.Scalar(&completed, `SELECT count(*) FILTER (WHERE status = 'completed') FROM {{schema}}.tasks`)
	require.Equal(t, tasks, completed, "every task completed; output:\n%s", joinLogs(logs))
	d.Scalar(&used, `SELECT coalesce(sum(used), 0) FROM {{schema}}.concurrency_slots`)
	require.Zero(t, used, "every unit given back")
	d.RequireInvariants()
	d.Scalar(&rows, `SELECT count(*) FROM {{schema}}.workers`)
	require.Zero(t, rows, "the workers unregistered when they stopped")
	require.LessOrEqual(t, maxRunning.Load(), int64(limit), "running never above the limit")
	require.Positive(t, maxRunning.Load(), "the sampler saw tasks running")
	t.Logf("%d tasks drained by %d Python workers; most running at once: %d (limit %d)", tasks, workers, maxRunning.Load(), limit)
}

func joinLogs(logs []*strings.Builder) string {
	var b strings.Builder
	for i, l := range logs {
		fmt.Fprintf(&b, "--- worker %d\n%s", i+1, l.String())
	}
	return b.String()
}
