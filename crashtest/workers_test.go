package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// drainConfig is the configuration the worker tests drain: short timeouts
// so that dead workers are found within the test, retries enough for any
// number of recoveries, and limited types beside an unlimited one.
const drainConfig = `
queue "crash" {
  batch_size     = 20
  max_retries    = 1000
  worker_timeout = "2s"
  leader_lease   = "1s"
  backoff {
    initial = "10ms"
    max     = "100ms"
  }
}

task "crash:plain" {
  queue = "crash"
}

task "crash:render" {
  queue       = "crash"
  concurrency = 3
}

task "crash:mail" {
  queue       = "crash"
  concurrency = 3
}

task "crash:report" {
  queue       = "crash"
  concurrency = 1
}
`

// topUp keeps every type of drainConfig busy while workers are killed:
// when fewer than below tasks of a type are unfinished, wave more are
// enqueued.
var topUp = map[string]struct{ below, wave int }{
	"crash:plain":  {below: 600, wave: 1200},
	"crash:render": {below: 100, wave: 200},
	"crash:mail":   {below: 100, wave: 200},
	"crash:report": {below: 40, wave: 80},
}

// fastWorker are the flags of the workers of drainConfig's queue: four
// handlers of 5 ms.
var fastWorker = []string{"--queue", "crash", "--pool-size", "4", "--handler-sleep", "5ms"}

// workerArgs are the arguments of a worker process with flags that logs its
// executions to execLog.
func workerArgs(connString, schema, execLog string, flags []string) []string {
	args := []string{"--database-url", connString, "--schema", schema, "worker", "--exec-log", execLog}
	return append(args, flags...)
}

// TestWorkersKilled kills a random one of three worker processes every
// 200–500 ms during a drain and starts a replacement. See the package
// documentation for what is checked.
func TestWorkersKilled(t *testing.T) {
	t.Parallel()
	started := time.Now()
	churn := time.Duration(scale(t)) * 6 * time.Second
	dir := t.TempDir()
	cs := pgtest.ConnString(t)
	d := &db{pgseqtest.New(t)}

	code, out := runPgseq(t, "--database-url", cs, "--schema", d.Schema, "apply", "--auto-approve", writeFile(t, dir, "crash.hcl", drainConfig))
	require.Equal(t, 0, code, out)
	enqueued := 0
	topUpTypes := func() {
		rows, err := d.Pool.Query(context.Background(), d.SQL(
			`SELECT type, count(*)::int FROM {{schema}}.tasks WHERE status IN ('pending', 'claimed', 'running') GROUP BY type`))
		require.NoError(t, err)
		unfinished := map[string]int{}
		var typ string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&typ, &n}, func() error { unfinished[typ] = n; return nil })
		require.NoError(t, err)
		add := map[string]int{}
		for typ, u := range topUp {
			if unfinished[typ] < u.below {
				add[typ] = u.wave
				enqueued += u.wave
			}
		}
		d.enqueue(add)
	}
	topUpTypes()

	var (
		workers [3]*proc
		logs    []execLog
		all     []*proc
	)
	startWorker := func(i int) {
		name := fmt.Sprintf("worker-%d", len(all))
		path := filepath.Join(dir, name+".exec")
		p := startPgseq(t, dir, name, workerArgs(cs, d.Schema, path, fastWorker)...)
		workers[i] = p
		all = append(all, p)
		logs = append(logs, execLog{path: path, proc: p})
	}
	procs := func() []*proc { return all }
	sampler := startSampler(d)
	for i := range workers {
		startWorker(i)
	}

	kills := 0
	for end := time.Now().Add(churn); time.Now().Before(end); {
		// The kill period is the fault being injected, not a wait for
		// something to happen.
		time.Sleep(time.Duration(200+rand.IntN(301)) * time.Millisecond)
		topUpTypes()
		i := rand.IntN(len(workers))
		require.True(t, workers[i].running(), "%s exited on its own:\n%s", workers[i].name, workers[i].output())
		workers[i].kill()
		kills++
		startWorker(i)
	}
	churned := time.Since(started)

	d.waitDrained(40*time.Second, procs)
	drained := time.Since(started)
	for _, w := range workers {
		require.NoError(t, w.interrupt(15*time.Second), "%s must stop gracefully on SIGINT:\n%s", w.name, w.output())
	}

	sampler.check(t, 50)
	d.checkAtRest(enqueued)
	rerun := checkExecutions(t, d.taskIDs(), readExecutions(t, logs))
	var recovered int
	d.Scalar(&recovered, `SELECT count(*) FROM {{schema}}.tasks WHERE attempts > 1`)
	t.Logf("%d tasks, %d workers killed in %s, drained after %s; %d tasks claimed more than once, %d ran more than once",
		enqueued, kills, churned.Round(time.Millisecond), drained.Round(time.Millisecond), recovered, rerun)
	require.Positive(t, rerun, "killed workers' tasks must have run again: the test did not kill workers with tasks in flight")
}
