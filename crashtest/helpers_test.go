package crashtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// pgseqBin is the pgseq binary TestMain builds.
var pgseqBin string

// TestMain builds the pgseq binary once for all tests, into a temporary
// directory removed at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pgseq-crashtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashtest: creating a directory for the pgseq binary:", err)
		os.Exit(1)
	}
	pgseqBin = filepath.Join(dir, "pgseq")
	build := exec.Command("go", "build", "-o", pgseqBin, "github.com/pgseq/pgseq/cmd/pgseq")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "crashtest: building pgseq: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// scaleEnv names the variable that lengthens the tests (see the package
// documentation).
const scaleEnv = "PGSEQ_CRASHTEST_SCALE"

// scale returns PGSEQ_CRASHTEST_SCALE, 1 when unset.
func scale(t *testing.T) int {
	t.Helper()
	v := os.Getenv(scaleEnv)
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s must be a whole number", scaleEnv)
	require.Positive(t, n, "%s must be at least 1", scaleEnv)
	return n
}

// proc is a pgseq process started by a test.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  string // file with its stdout and stderr
	done chan struct{}
	err  error     // Wait's result, once done is closed
	end  time.Time // when Wait returned: the process no longer runs
}

// startPgseq starts the pgseq binary with args; its output goes to a file
// named after name in dir. The process is killed, if still running, when
// the test ends.
func startPgseq(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	out := filepath.Join(dir, name+".out")
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	cmd := exec.Command(pgseqBin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	require.NoError(t, cmd.Start(), "starting pgseq %s", name)
	p := &proc{name: name, cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.end = time.Now()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

// kill sends SIGKILL and waits until the process is gone.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// running reports whether the process is still running.
func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// interrupt sends SIGINT (Ctrl-C) and waits up to timeout for the process
// to exit; it returns the exit error, or an error when it did not exit.
func (p *proc) interrupt(timeout time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		p.kill()
		return fmt.Errorf("%s did not exit within %s of SIGINT", p.name, timeout)
	}
}

// output returns the last lines of the process's output, for messages.
func (p *proc) output() string {
	b, err := os.ReadFile(p.out)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// runPgseq runs the pgseq binary to completion and returns its exit code
// and output.
func runPgseq(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgseqBin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("running pgseq %s: %v\n%s", strings.Join(args, " "), err, out)
	return 0, ""
}

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// withAppName returns the connection string with application_name set, so
// the test can find the server processes of one pgseq process.
func withAppName(t *testing.T, connString, name string) string {
	t.Helper()
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		require.NoError(t, err)
		q := u.Query()
		q.Set("application_name", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return connString + " application_name=" + name
}

// newPool opens a pool of a few connections to connString.
func newPool(t *testing.T, connString string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(connString)
	require.NoError(t, err)
	cfg.MaxConns = 4
	cfg.ConnConfig.RuntimeParams["application_name"] = "pgseq crashtest"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, pool.Ping(ctx))
	t.Cleanup(pool.Close)
	return pool
}

// db is one test's pgseq schema.
type db struct {
	*pgseqtest.DB
}

// enqueue adds n tasks of each type in counts.
func (d *db) enqueue(counts map[string]int) {
	d.T.Helper()
	var types []string
	for typ, n := range counts {
		for range n {
			types = append(types, typ)
		}
	}
	if len(types) == 0 {
		return
	}
	rand.Shuffle(len(types), func(i, j int) { types[i], types[j] = types[j], types[i] })
	d.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, types)
}

// waitDrained waits until no task is pending, claimed or running, and fails
// the test after timeout, saying what is left.
func (d *db) waitDrained(timeout time.Duration, procs func() []*proc) {
	d.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var left int
		err := d.Pool.QueryRow(context.Background(), d.SQL(
			`SELECT count(*) FROM {{schema}}.tasks WHERE status IN ('pending', 'claimed', 'running')`)).Scan(&left)
		if err == nil && left == 0 {
			return
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, p := range procs() {
				fmt.Fprintf(&logs, "--- %s (running: %v)\n%s\n", p.name, p.running(), p.output())
			}
			d.T.Fatalf("invariant broken: the drain did not finish within %s: tasks by status %v (last error: %v)\n%s\n%s",
				timeout, d.StatusCounts(), err, d.holders(), logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// holders describes the tasks claimed or running and the workers holding
// them, for messages.
func (d *db) holders() string {
	rows, err := d.Pool.Query(context.Background(), d.SQL(`
		SELECT t.id, t.type, t.status::text, coalesce(t.worker_id, ''), t.attempts,
		       coalesce(w.dead_at::text, 'alive'), coalesce(round(extract(epoch FROM now() - w.last_heartbeat)::numeric, 1)::text, 'no worker row')
		FROM {{schema}}.tasks t LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
		WHERE t.status IN ('claimed', 'running') ORDER BY t.id LIMIT 20`))
	if err != nil {
		return "(tasks held: " + err.Error() + ")"
	}
	var b strings.Builder
	var id int64
	var typ, status, worker, dead, age string
	var attempts int
	_, err = pgx.ForEachRow(rows, []any{&id, &typ, &status, &worker, &attempts, &dead, &age}, func() error {
		fmt.Fprintf(&b, "task %d (%s) %s by worker %s (attempt %d; worker dead: %s, heartbeat %ss ago)\n", id, typ, status, worker, attempts, dead, age)
		return nil
	})
	if err != nil {
		return "(tasks held: " + err.Error() + ")"
	}
	return b.String()
}

// checkAtRest requires what must hold once a drain is over: every task
// completed (none failed, dead-lettered or left behind), and the slot
// invariants at rest (pgseqtest.RequireInvariants): with nothing pending or
// running, every slot group free (used = holders = 0), no finished task
// holding a unit.
func (d *db) checkAtRest(total int) {
	d.T.Helper()
	counts := d.StatusCounts()
	require.Equal(d.T, map[string]int{"completed": total}, counts, "invariant broken: every task completed exactly as enqueued")
	d.RequireInvariants()
}

// limitSampler checks, from its own connection, the slot invariants that
// hold at every instant (pgseqtest.CheckInvariants, not at rest: I1 running
// ≤ limit, holders ≤ capacity, capacities summing to the limit; I2 used =
// holders; I3) as often as it can while a drain runs, one snapshot per
// sample, and records the most tasks of each limited type it saw running.
type limitSampler struct {
	d      *db
	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	samples    int
	errors     int
	maxRunning map[string]int // highest running count seen per type
	// reservedSamples counts the samples that saw reserved successors
	// (migration 036: workers with handlers slower than their completions
	// hold them beside binding types).
	reservedSamples int
	limits          map[string]int // each limited type's limit
	violations      []string
}

// runningSQL returns each limited type's limit, running tasks and reserved
// successors.
const runningSQL = `
SELECT tt.name, tt.concurrency, count(t.id) FILTER (WHERE t.status = 'running')::int,
       count(t.id) FILTER (WHERE t.status = 'claimed')::int
FROM {{schema}}.task_types tt
LEFT JOIN {{schema}}.tasks t ON t.type = tt.name AND t.status IN ('running', 'claimed')
WHERE tt.concurrency IS NOT NULL
GROUP BY 1, 2`

func startSampler(d *db) *limitSampler {
	ctx, cancel := context.WithCancel(context.Background())
	s := &limitSampler{d: d, cancel: cancel, done: make(chan struct{}), maxRunning: map[string]int{}, limits: map[string]int{}}
	go s.run(ctx)
	d.T.Cleanup(s.stop)
	return s
}

func (s *limitSampler) run(ctx context.Context) {
	defer close(s.done)
	query := s.d.SQL(runningSQL)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.sample(ctx, query)
	}
}

func (s *limitSampler) sample(ctx context.Context, query string) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	type row struct {
		Type                     string
		Limit, Running, Reserved int
	}
	var got []row
	vs, err := pgseqtest.CheckInvariants(qctx, s.d.Pool, s.d.Schema, false)
	if err == nil {
		var rows pgx.Rows
		if rows, err = s.d.Pool.Query(qctx, query); err == nil {
			got, err = pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		}
	}
	if ctx.Err() != nil {
		return // stopped mid-sample
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors++ // the server may be down (TestPostgresCrash)
		return
	}
	s.samples++
	for _, v := range vs {
		s.violations = append(s.violations, v.String())
	}
	reserved := false
	for _, r := range got {
		s.maxRunning[r.Type] = max(s.maxRunning[r.Type], r.Running)
		s.limits[r.Type] = r.Limit
		reserved = reserved || r.Reserved > 0
	}
	if reserved {
		s.reservedSamples++
	}
}

func (s *limitSampler) stop() {
	s.cancel()
	<-s.done
}

// check stops the sampler and requires that it sampled, found no
// violation, and saw at least one limited type run at its limit (else the
// limit was never tested).
func (s *limitSampler) check(t *testing.T, minSamples int) {
	t.Helper()
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Logf("limit sampler: %d samples (%d failed, %d seeing reserved successors), highest running per type %v",
		s.samples, s.errors, s.reservedSamples, s.maxRunning)
	if len(s.violations) > 0 {
		n := min(len(s.violations), 20)
		t.Fatalf("invariant broken: a limit was exceeded or slot usage was wrong: %d violations in %d samples, e.g.:\n%s",
			len(s.violations), s.samples, strings.Join(s.violations[:n], "\n"))
	}
	require.GreaterOrEqual(t, s.samples, minSamples, "the sampler must have sampled the drain")
	bound := false
	for typ, n := range s.maxRunning {
		bound = bound || n == s.limits[typ]
	}
	require.True(t, bound, "no limited type was ever seen running at its limit: the test did not exercise the limit")
}

// execLog is the --exec-log file of one worker process.
type execLog struct {
	path string
	proc *proc
}

// execution is one run of a task's handler: from start to end, or to the
// death of its process when it did not end.
type execution struct {
	proc       string
	start, end int64 // Unix nanoseconds
	ended      bool  // the handler returned (an end line)
}

// readExecutions reads the execution logs of processes that all exited,
// and returns the executions by task id.
func readExecutions(t *testing.T, logs []execLog) map[int64][]execution {
	t.Helper()
	out := map[int64][]execution{}
	for _, l := range logs {
		require.False(t, l.proc.running(), "%s must have exited", l.proc.name)
		f, err := os.Open(l.path)
		if errors.Is(err, os.ErrNotExist) {
			continue // killed before it ran anything
		}
		require.NoError(t, err)
		open := map[int64]int64{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var phase string
			var id, ns int64
			_, err := fmt.Sscanf(sc.Text(), "%s %d %d", &phase, &id, &ns)
			require.NoError(t, err, "%s: line %q", l.path, sc.Text())
			switch phase {
			case "start":
				_, dup := open[id]
				require.False(t, dup, "%s: task %d started twice in one process without ending", l.path, id)
				open[id] = ns
			case "end":
				start, ok := open[id]
				require.True(t, ok, "%s: task %d ended without a start", l.path, id)
				delete(open, id)
				out[id] = append(out[id], execution{proc: l.proc.name, start: start, end: ns, ended: true})
			default:
				t.Fatalf("%s: unknown line %q", l.path, sc.Text())
			}
		}
		require.NoError(t, sc.Err())
		f.Close()
		// Handlers that had not ended ran until the process died.
		for id, start := range open {
			out[id] = append(out[id], execution{proc: l.proc.name, start: start, end: l.proc.end.UnixNano()})
		}
	}
	return out
}

// checkExecutions requires that every task in ids finished a run of its
// handler and that no task ran twice at the same time; it returns how many
// tasks ran more than once.
func checkExecutions(t *testing.T, ids []int64, execs map[int64][]execution) (rerun int) {
	t.Helper()
	var missing []int64
	var overlaps []string
	for _, id := range ids {
		runs := execs[id]
		if !slices.ContainsFunc(runs, func(e execution) bool { return e.ended }) {
			missing = append(missing, id)
		}
		if len(runs) > 1 {
			rerun++
		}
		slices.SortFunc(runs, func(a, b execution) int { return int(a.start - b.start) })
		for i := 1; i < len(runs); i++ {
			if runs[i].start < runs[i-1].end {
				overlaps = append(overlaps, fmt.Sprintf("task %d: %s ran it from %s until %s, %s from %s",
					id, runs[i-1].proc, clock(runs[i-1].start), clock(runs[i-1].end), runs[i].proc, clock(runs[i].start)))
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("invariant broken: %d completed tasks never finished a run of their handler, e.g. %v", len(missing), missing[:min(len(missing), 10)])
	}
	if len(overlaps) > 0 {
		t.Fatalf("invariant broken: %d tasks ran twice at the same time, e.g.:\n%s", len(overlaps), strings.Join(overlaps[:min(len(overlaps), 10)], "\n"))
	}
	return rerun
}

func clock(ns int64) string { return time.Unix(0, ns).Format("15:04:05.000000") }

// taskIDs returns the ids of all tasks.
func (d *db) taskIDs() []int64 {
	d.T.Helper()
	return pgseqtest.Column[int64](d.DB, `SELECT id FROM {{schema}}.tasks ORDER BY id`)
}
