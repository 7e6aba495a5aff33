package crashtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// outageConfig is the queue of TestPostgresRestartWithANewLeader: a short
// worker_timeout and leader lease, one task per claim.
const outageConfig = `
queue "outage" {
  batch_size     = 1
  max_retries    = 1000
  worker_timeout = "2s"
  leader_lease   = "1s"
}

task "outage:slow" {
  queue = "outage"
}
`

// outageTimeout is outageConfig's worker_timeout.
const outageTimeout = 2 * time.Second

// outageWorker are the flags of the workers of outageConfig's queue: one
// handler of 6s, so that the tasks they run at the crash still run when
// maintenance first judges them after the restart. Each holds two tasks:
// the one its handler runs and the one claimed ahead.
var outageWorker = []string{"--queue", "outage", "--pool-size", "1", "--handler-sleep", "6s"}

// maintenanceRun is one run_maintenance call of the SQL leader.
type maintenanceRun struct {
	at     time.Time // when the call returned
	report map[string]any
}

// sqlLeader is a maintenance caller written in plain SQL, on a connection
// of its own: it registers under its own id, heartbeats, renews its lease
// with elect_leader and runs maintenance every ~300 ms. It knows nothing of
// outages: no guard of its own.
type sqlLeader struct {
	d      *db
	id     string
	conn   *pgx.Conn
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	runs []maintenanceRun
	err  error
}

// startSQLLeader connects, registers id, calls elect_leader until it wins
// (an old lease runs out after leader_lease) and runs maintenance at once,
// then every ~300 ms in the background. It returns once the first
// maintenance has run.
func startSQLLeader(t *testing.T, d *db, connString, id string) *sqlLeader {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, withAppName(t, connString, "pgseq crashtest sql leader"))
	require.NoError(t, err, "the SQL leader connecting after the restart")
	t.Cleanup(func() { conn.Close(context.Background()) })
	_, err = conn.Exec(ctx, d.SQL(`SELECT {{schema}}.register_worker($1, 'crashtest', 1)`), id)
	require.NoError(t, err, "register_worker")
	for {
		var won bool
		require.NoError(t, conn.QueryRow(ctx, d.SQL(`SELECT {{schema}}.elect_leader($1)`), id).Scan(&won), "elect_leader")
		if won {
			break
		}
		require.NoError(t, ctx.Err(), "the SQL leader never won the lease")
		time.Sleep(50 * time.Millisecond)
	}
	lctx, lcancel := context.WithCancel(context.Background())
	l := &sqlLeader{d: d, id: id, conn: conn, cancel: lcancel, done: make(chan struct{})}
	require.NoError(t, l.maintain(ctx), "the SQL leader's first maintenance")
	go l.loop(lctx)
	t.Cleanup(l.stop)
	return l
}

// maintain runs maintenance once and records its report.
func (l *sqlLeader) maintain(ctx context.Context) error {
	var report map[string]any
	if err := l.conn.QueryRow(ctx, l.d.SQL(`SELECT {{schema}}.run_maintenance($1)`), l.id).Scan(&report); err != nil {
		return fmt.Errorf("run_maintenance: %w", err)
	}
	l.mu.Lock()
	l.runs = append(l.runs, maintenanceRun{at: time.Now(), report: report})
	l.mu.Unlock()
	return nil
}

func (l *sqlLeader) loop(ctx context.Context) {
	defer close(l.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(300 * time.Millisecond):
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := func() error {
			var alive, won bool
			if err := l.conn.QueryRow(cctx, l.d.SQL(`SELECT {{schema}}.heartbeat($1)`), l.id).Scan(&alive); err != nil {
				return fmt.Errorf("heartbeat: %w", err)
			}
			if !alive {
				return fmt.Errorf("the SQL leader %s was declared dead", l.id)
			}
			if err := l.conn.QueryRow(cctx, l.d.SQL(`SELECT {{schema}}.elect_leader($1)`), l.id).Scan(&won); err != nil {
				return fmt.Errorf("elect_leader: %w", err)
			}
			if !won {
				return fmt.Errorf("the SQL leader %s lost its lease", l.id)
			}
			return l.maintain(cctx)
		}()
		cancel()
		if err != nil && ctx.Err() == nil {
			l.mu.Lock()
			l.err = err
			l.mu.Unlock()
			return
		}
	}
}

// stop ends the maintenance loop.
func (l *sqlLeader) stop() {
	l.cancel()
	<-l.done
}

// reports returns the maintenance runs so far and the loop's error.
func (l *sqlLeader) reports() ([]maintenanceRun, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]maintenanceRun(nil), l.runs...), l.err
}

// reportSum adds up a count of the reports.
func reportSum(runs []maintenanceRun, key string) int {
	n := 0
	for _, r := range runs {
		if v, ok := r.report[key].(float64); ok {
			n += int(v)
		}
	}
	return n
}

// handlerRunning reports whether an execution log has a start line with no
// end line after it: a handler of the process runs.
func handlerRunning(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false
	}
	require.NoError(t, err)
	open := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			open[f[1]] = f[0] == "start"
		}
	}
	for _, o := range open {
		if o {
			return true
		}
	}
	return false
}

// TestPostgresRestartWithANewLeader crashes the server under worker
// processes that run long tasks, SIGKILLs one of them while the server is
// down, keeps it down longer than worker_timeout and starts it again; a
// maintenance caller in plain SQL leads at once after the restart. No live
// worker may be declared dead for the outage, and the killed one's tasks
// must be recovered within two worker_timeouts of the restart. See the
// package documentation.
func TestPostgresRestartWithANewLeader(t *testing.T) {
	t.Parallel()
	started := time.Now()
	dir := t.TempDir()
	cluster := newCluster(t, filepath.Join(dir, "cluster"))
	ctx := t.Context()
	cs, err := cluster.Start(ctx)
	require.NoError(t, err)
	d := &db{&pgseqtest.DB{T: t, Pool: newPool(t, cs), Schema: "outage"}}

	code, out := runPgseq(t, "--database-url", cs, "--schema", d.Schema, "apply", "--auto-approve", writeFile(t, dir, "outage.hcl", outageConfig))
	require.Equal(t, 0, code, out)
	// Two tasks per worker: each holds two, one running and one claimed
	// ahead.
	d.enqueue(map[string]int{"outage:slow": 6})

	var workers []*proc
	var logs []execLog
	startWorker := func(name string, flags ...string) *proc {
		path := filepath.Join(dir, name+".exec")
		args := append(workerArgs(cs, d.Schema, path, outageWorker), "--worker-id", name)
		p := startPgseq(t, dir, name, append(args, flags...)...)
		workers = append(workers, p)
		logs = append(logs, execLog{path: path, proc: p})
		return p
	}
	for i := range 3 {
		startWorker(fmt.Sprintf("outage-worker-%d", i))
	}
	procs := func() []*proc { return workers }
	victim, survivors := workers[0], []*proc{workers[1], workers[2]}

	// Every worker runs a task and holds another: all six are held (two
	// each at most), so no claim is in flight when the server dies (a claim
	// cut off would end the worker's session: it would carry on under a new
	// id, rightly).
	deadline := time.Now().Add(30 * time.Second)
	for {
		var held, holders int
		d.Scalar(&held, `SELECT count(*) FROM {{schema}}.tasks WHERE status IN ('claimed', 'running')`)
		d.Scalar(&holders, `SELECT count(DISTINCT worker_id) FROM {{schema}}.tasks WHERE status IN ('claimed', 'running')`)
		runningAll := true
		for _, l := range logs {
			runningAll = runningAll && handlerRunning(t, l.path)
		}
		if held == 6 && holders == len(workers) && runningAll {
			time.Sleep(200 * time.Millisecond) // the last claim's answer reaches its worker
			break
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, p := range workers {
				fmt.Fprintf(&b, "--- %s (running: %v)\n%s\n", p.name, p.running(), p.output())
			}
			t.Fatalf("the workers did not all start a task and claim another within 30s: %d tasks held by %d workers\n%s\n%s", held, holders, d.holders(), b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	victimTasks := pgseqtest.Column[int64](d.DB, `SELECT id FROM {{schema}}.tasks WHERE worker_id = $1 AND status IN ('claimed', 'running') ORDER BY id`, victim.name)
	require.NotEmpty(t, victimTasks)

	// The crash. The victim dies for good while the server is down; the
	// survivors notice the outage, then are paused (SIGSTOP) until the SQL
	// leader has run its first maintenance after the restart: no Go worker
	// can take the lease first, and the maintenance certainly judges them
	// before any of them heartbeats again (else the window the bug needs
	// would be a race).
	offsets := outputSizes(t, survivors)
	down := crash(t, cluster)
	victim.kill()
	waitNoticed(t, survivors, offsets, 20*time.Second)
	for _, p := range survivors {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGSTOP), "pausing %s", p.name)
	}
	resumed := false
	resume := func() {
		if resumed {
			return
		}
		resumed = true
		for _, p := range survivors {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	time.Sleep(time.Until(down.Add(outage)))
	_, err = cluster.Start(ctx)
	require.NoError(t, err, "restarting the server after the crash")
	restarted := time.Now()

	leader := startSQLLeader(t, d, cs, "outage-sql-leader")
	firstMaintenance := time.Since(restarted)
	for _, p := range survivors {
		require.True(t, handlerRunning(t, logs[slices.Index(workers, p)].path),
			"the test was too slow: %s's handler no longer ran at the first maintenance after the restart", p.name)
	}
	resume()
	// A worker started after the outage has no memory of it; two handlers,
	// for the killed worker's two tasks.
	startWorker("outage-worker-new", "--pool-size", "2")

	// The victim is declared dead and its tasks recovered, by the SQL
	// leader's maintenance.
	var recoveredAt time.Time
	deadline = time.Now().Add(4 * outageTimeout)
	for recoveredAt.IsZero() {
		runs, err := leader.reports()
		require.NoError(t, err, "the SQL leader")
		for _, r := range runs {
			if v, _ := r.report["recovered"].(float64); v > 0 {
				recoveredAt = r.at
				break
			}
		}
		if recoveredAt.IsZero() && time.Now().After(deadline) {
			t.Fatalf("invariant broken: %s's tasks were not recovered within %s of the restart\n%s", victim.name, 4*outageTimeout, d.holders())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// deadAfter counts from the server's start, sinceContact from when
	// contact returned (judged_from: the first contact after the gap, at or
	// after the start), which is what the rule promises against.
	var deadAfter, sinceContact, heldAfter float64
	d.Scalar(&deadAfter, `SELECT extract(epoch FROM dead_at - pg_postmaster_start_time())::float8 FROM {{schema}}.workers WHERE id = $1`, victim.name)
	d.Scalar(&sinceContact, `SELECT extract(epoch FROM w.dead_at - greatest(c.judged_from, pg_postmaster_start_time()))::float8
		FROM {{schema}}.workers w, {{schema}}.runtime_clock c WHERE w.id = $1`, victim.name)
	d.Scalar(&heldAfter, `SELECT count(*)::float8 FROM {{schema}}.tasks WHERE worker_id = $1 AND status IN ('claimed', 'running')`, victim.name)
	require.Zero(t, heldAfter, "invariant broken: %s's tasks are recovered", victim.name)
	t.Logf("restart: server down for %s; first SQL maintenance %s after the restart; %s declared dead %.3fs after the server started, %.3fs after contact returned (its %d tasks recovered at the maintenance that returned %s after cluster start returned)",
		restarted.Sub(down).Round(time.Millisecond), firstMaintenance.Round(time.Millisecond), victim.name, deadAfter, sinceContact, len(victimTasks), recoveredAt.Sub(restarted).Round(time.Millisecond))

	d.waitDrained(30*time.Second, procs)
	runs, err := leader.reports()
	require.NoError(t, err, "the SQL leader")
	leader.stop()

	// No live worker was declared dead: not in their output, not in the
	// workers table (checked before they stop).
	for _, p := range workers[1:] {
		require.True(t, p.running(), "%s exited:\n%s", p.name, p.output())
		b, err := os.ReadFile(p.out)
		require.NoError(t, err)
		require.NotContains(t, string(b), "worker was declared dead",
			"invariant broken: %s, alive all along, was declared dead after the restart:\n%s", p.name, p.output())
		require.NotContains(t, string(b), "carrying on under a new id",
			"invariant broken: %s, alive all along and with no claim in flight at the crash, must keep its id:\n%s", p.name, p.output())
	}
	var dead []string
	d.Scalar(&dead, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM {{schema}}.workers WHERE dead_at IS NOT NULL`)
	require.Equal(t, []string{victim.name}, dead, "invariant broken: only the killed worker is declared dead (maintenance reports %v)", runs)
	require.Equal(t, 1, reportSum(runs, "workers_declared_dead"), "invariant broken: the SQL leader's maintenance declared only the killed worker dead: %v", runs)
	require.Equal(t, len(victimTasks), reportSum(runs, "recovered"), "invariant broken: the SQL leader's maintenance recovered the killed worker's tasks, and no other: %v", runs)

	// The victim got a fresh worker_timeout from the restart, no more: it
	// was declared dead worker_timeout after contact returned, at the
	// leader's next maintenance, within two worker_timeouts (docs/sql-api.md,
	// "After an outage"). Counted from the server's start instead, a slow first
	// contact on a loaded machine (the crash tests run beside the others)
	// spent part of the bound before the rule's clock started.
	require.GreaterOrEqual(t, deadAfter, outageTimeout.Seconds(), "the killed worker was declared dead before worker_timeout after the restart")
	require.GreaterOrEqual(t, sinceContact, outageTimeout.Seconds(), "the killed worker was declared dead before worker_timeout after contact returned")
	require.LessOrEqual(t, sinceContact, 2*outageTimeout.Seconds(), "invariant broken: the killed worker's tasks are recovered within two worker_timeouts of contact returning")

	for _, p := range workers[1:] {
		require.NoError(t, p.interrupt(15*time.Second), "%s must stop gracefully on SIGINT:\n%s", p.name, p.output())
	}
	d.checkAtRest(6)
	execs := readExecutions(t, logs)
	rerun := checkExecutions(t, d.taskIDs(), execs)
	for _, id := range victimTasks {
		ranElsewhere := false
		for _, e := range execs[id] {
			ranElsewhere = ranElsewhere || (e.ended && e.proc != victim.name)
		}
		require.True(t, ranElsewhere, "invariant broken: task %d of the killed worker was run to the end by another worker", id)
	}
	t.Logf("%d tasks drained after %s; %d ran more than once (the killed worker's started one); %d SQL maintenance runs",
		6, time.Since(started).Round(time.Millisecond), rerun, len(runs))
}
