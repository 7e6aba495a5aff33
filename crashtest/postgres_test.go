package crashtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/localdb"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// slowConfig adds to drainConfig a queue for slow workers: one handler of
// three seconds each, claiming one task at a time, so that they seldom have
// a call in flight and their sessions live through a crash, with a task
// running. Their own queue, so that they never hold the units of
// drainConfig's limited types (a worker that completes a limited task takes
// the next one itself).
const slowConfig = `
queue "crash-slow" {
  batch_size     = 1
  max_retries    = 1000
  worker_timeout = "2s"
  leader_lease   = "1s"
}

task "crash:slow" {
  queue = "crash-slow"
}
`

// slowWorker are the flags of the workers of slowConfig's queue.
var slowWorker = []string{"--queue", "crash-slow", "--pool-size", "1", "--handler-sleep", "3s"}

// outage is how long the server stays down at least: longer than
// drainConfig's worker_timeout.
const outage = 3 * time.Second

// TestPostgresCrash crashes the server under a drain by worker processes
// and starts it again; the workers must carry on by themselves. See the
// package documentation.
func TestPostgresCrash(t *testing.T) {
	t.Parallel()
	started := time.Now()
	crashes := scale(t)
	dir := t.TempDir()
	cluster := newCluster(t, filepath.Join(dir, "cluster"))
	ctx := t.Context()
	cs, err := cluster.Start(ctx)
	require.NoError(t, err)
	d := &db{&pgseqtest.DB{T: t, Pool: newPool(t, cs), Schema: "crash"}}

	code, out := runPgseq(t, "--database-url", cs, "--schema", d.Schema, "apply", "--auto-approve", writeFile(t, dir, "crash.hcl", drainConfig+slowConfig))
	require.Equal(t, 0, code, out)
	// The slow workers' tasks last until after the first restart; the
	// others, which the crashes are spread over, grow with them.
	wave := map[string]int{"crash:plain": 2800, "crash:render": 500, "crash:mail": 500, "crash:report": 200}
	total := 4
	for typ, n := range wave {
		wave[typ] = n * crashes
		total += n * crashes
	}
	wave["crash:slow"] = 4
	d.enqueue(wave)

	// Three fast workers, whose claims are nearly always in flight (a crash
	// ends their sessions: they carry on under new ids), and two slow ones,
	// whose sessions should live through the outage.
	var workers []*proc
	var logs []execLog
	for i := range 5 {
		name, flags := fmt.Sprintf("worker-%d", i), fastWorker
		if i >= 3 {
			name, flags = fmt.Sprintf("slow-worker-%d", i), slowWorker
		}
		path := filepath.Join(dir, name+".exec")
		p := startPgseq(t, dir, name, workerArgs(cs, d.Schema, path, flags)...)
		workers = append(workers, p)
		logs = append(logs, execLog{path: path, proc: p})
	}
	procs := func() []*proc { return workers }
	sampler := startSampler(d)

	var lastRestart time.Time
	var firstOutage []int64 // the workers' output up to the second crash
	for i := range crashes {
		// Crash in the middle of the drain: after a share of the tasks.
		waitCompleted(t, d, total*(i+1)/(crashes+1), 30*time.Second, procs)
		offsets := outputSizes(t, workers)
		if i == 1 {
			firstOutage = offsets
		}
		down := crash(t, cluster)
		// Keep the server down until every worker has noticed, and longer
		// than worker_timeout: every heartbeat is stale when it is back.
		waitNoticed(t, workers, offsets, 20*time.Second)
		noticed := time.Since(down)
		time.Sleep(time.Until(down.Add(outage)))
		restart := time.Now()
		_, err := cluster.Start(ctx)
		require.NoError(t, err, "restarting the server after the crash")
		lastRestart = time.Now()
		t.Logf("crash %d: every worker noticed within %s; server down for %s, of which %s restarting",
			i+1, noticed.Round(time.Millisecond), lastRestart.Sub(down).Round(time.Millisecond), lastRestart.Sub(restart).Round(time.Millisecond))
	}

	d.waitDrained(45*time.Second, procs)
	drained := time.Since(started)
	for _, w := range workers {
		require.True(t, w.running(), "invariant broken: %s exited after the crash instead of reconnecting:\n%s", w.name, w.output())
	}
	// Each process heartbeats again, under one id (a new one when its
	// session ended in the outage).
	var live int
	deadline := time.Now().Add(15 * time.Second)
	for {
		d.Scalar(&live, `SELECT count(*) FROM {{schema}}.workers WHERE dead_at IS NULL AND last_heartbeat > $1`, lastRestart)
		if live >= len(workers) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.GreaterOrEqual(t, live, len(workers), "invariant broken: every worker heartbeats again after the restart")
	for _, w := range workers {
		require.NoError(t, w.interrupt(15*time.Second), "%s must stop gracefully on SIGINT:\n%s", w.name, w.output())
	}

	// No worker that lived through the outage was declared dead for it
	// (the leader waits worker_timeout after an outage before it judges
	// heartbeats), and the slow workers' sessions, which could not connect
	// while the server was down, kept going (queue's outcomeUnknown). Only
	// the first outage counts for the slow workers: after it they have
	// nothing left to do and poll.
	kept := 0
	var ended strings.Builder
	for i, w := range workers {
		b, err := os.ReadFile(w.out)
		require.NoError(t, err)
		require.NotContains(t, string(b), "worker was declared dead",
			"invariant broken: %s, alive all along, was declared dead after the restart:\n%s", w.name, w.output())
		if !strings.HasPrefix(w.name, "slow") {
			continue
		}
		if firstOutage != nil {
			b = b[:firstOutage[i]]
		}
		if !strings.Contains(string(b), "carrying on under a new id") {
			kept++
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "new id") {
				fmt.Fprintf(&ended, "%s: %s\n", w.name, line)
			}
		}
	}
	require.Positive(t, kept, "invariant broken: the slow workers, with no call in flight at the crash, must keep their sessions through the outage:\n%s", ended.String())

	sampler.check(t, 50)
	d.checkAtRest(total)
	rerun := checkExecutions(t, d.taskIDs(), readExecutions(t, logs))
	var reclaimed int
	d.Scalar(&reclaimed, `SELECT count(*) FROM {{schema}}.tasks WHERE attempts > 1`)
	t.Logf("%d tasks, %d crashes, drained after %s; %d tasks claimed more than once, %d ran more than once",
		total, crashes, drained.Round(time.Millisecond), reclaimed, rerun)
}

// newCluster returns a throw-away cluster under dir, stopped and removed
// when the test ends.
func newCluster(t *testing.T, dir string) *localdb.DB {
	t.Helper()
	cluster, err := localdb.New(dir)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cluster.Stop(ctx); err != nil {
			t.Errorf("stopping the test cluster: %v", err)
		}
		// As root the cluster lives in /tmp/pgseq-<hash> (see localdb).
		if st, err := cluster.Status(); err == nil && !strings.HasPrefix(st.DataDir, dir+"/") {
			if err := os.RemoveAll(filepath.Dir(st.DataDir)); err != nil {
				t.Errorf("removing the test cluster: %v", err)
			}
		}
	})
	return cluster
}

// crash stops the cluster's server in immediate mode: SIGQUIT to the
// postmaster, which is what pg_ctl stop -m immediate sends; the server
// stops without a checkpoint and recovers from its WAL on the next start.
// It returns once the server is gone.
func crash(t *testing.T, cluster *localdb.DB) time.Time {
	t.Helper()
	st, err := cluster.Status()
	require.NoError(t, err)
	require.True(t, st.Running, "the server must be running to crash it")
	require.NoError(t, syscall.Kill(st.PID, syscall.SIGQUIT), "crashing the server")
	down := time.Now()
	require.Eventually(t, func() bool {
		st, err := cluster.Status()
		return err == nil && !st.Running
	}, 30*time.Second, 10*time.Millisecond, "the server did not stop after SIGQUIT")
	return down
}

// waitCompleted waits until at least n tasks are completed.
func waitCompleted(t *testing.T, d *db, n int, timeout time.Duration, procs func() []*proc) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var done int
		err := d.Pool.QueryRow(context.Background(), d.SQL(`SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`)).Scan(&done)
		if err == nil && done >= n {
			return
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, p := range procs() {
				fmt.Fprintf(&logs, "--- %s (running: %v)\n%s\n", p.name, p.running(), p.output())
			}
			t.Fatalf("%d tasks were not completed within %s (%d were, last error %v)\n%s", n, timeout, done, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outputSizes returns the sizes of the processes' output files.
func outputSizes(t *testing.T, procs []*proc) []int64 {
	t.Helper()
	sizes := make([]int64, len(procs))
	for i, p := range procs {
		fi, err := os.Stat(p.out)
		require.NoError(t, err)
		sizes[i] = fi.Size()
	}
	return sizes
}

// waitNoticed waits until every process has logged a warning or an error
// after the given offsets of its output.
func waitNoticed(t *testing.T, procs []*proc, offsets []int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for i, p := range procs {
		for {
			b, err := os.ReadFile(p.out)
			require.NoError(t, err)
			fresh := string(b[offsets[i]:])
			if strings.Contains(fresh, "level=WARN") || strings.Contains(fresh, "level=ERROR") {
				break
			}
			require.True(t, time.Now().Before(deadline), "%s logged nothing about the server being down within %s:\n%s", p.name, timeout, p.output())
			time.Sleep(20 * time.Millisecond)
		}
	}
}
