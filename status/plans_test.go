package status

import (
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

const seedConfig = `
queue "default" {}
queue "media" {}
task "email" {
  max_retries = 0
}
task "report" {
  queue = "media"
}
task "render" {
  queue       = "media"
  concurrency = 5
}
task "thumb" {
  queue       = "media"
  concurrency = 50
}
task "digest" {
  queue = "tenants"
  partition {
    concurrency = 1
  }
}
queue "tenants" {}
counter "invoice" {
  idempotency_window = "10m"
}
`

// seedKeys enqueues two due digest tasks for each of n partition keys
// (per-key limit 1): each key admits one, the other waits for it.
func (e *env) seedKeys(n int) {
	e.T.Helper()
	e.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(
	    array_fill('digest'::text, ARRAY[2 * $1::int]),
	    partition_keys => (SELECT array_agg('key-' || (g % $1::int) ORDER BY g) FROM generate_series(1, 2 * $1::int) g))`, n)
}

// seed enqueues n tasks through enqueue_batch, in batches of 10,000: 60%
// email (default queue), 20% render and 10% thumb (limited, media) and 10%
// report (media), over five priorities, one in seven due in an hour.
func (e *env) seed(n int) {
	e.T.Helper()
	for done := 0; done < n; done += 10_000 {
		e.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(
		    (SELECT array_agg(CASE WHEN g % 10 < 6 THEN 'email' WHEN g % 10 < 8 THEN 'render'
		                           WHEN g % 10 < 9 THEN 'thumb' ELSE 'report' END ORDER BY g)
		     FROM generate_series(1, $1::int) g),
		    NULL, NULL,
		    (SELECT array_agg((g % 5) - 2 ORDER BY g) FROM generate_series(1, $1::int) g),
		    (SELECT array_agg(CASE WHEN g % 7 = 0 THEN now() + interval '1 hour' END ORDER BY g)
		     FROM generate_series(1, $1::int) g))`, min(10_000, n-done))
	}
}

// seedActivity runs the runtime over a seeded schema: 20,000 email tasks
// completed, 50 failed for good, 50 dead-lettered, some running (of the
// limited types, up to their limits), workers, a leader, counter values
// and reservations.
func (e *env) seedActivity() {
	e.T.Helper()
	e.Exec(`SELECT {{schema}}.register_worker('w1', 'host', 100)`)
	e.Exec(`SELECT {{schema}}.register_worker('w2', 'host', 100)`)
	e.Exec(`SELECT {{schema}}.elect_leader('w1')`)
	for range 2 {
		e.Exec(`SELECT {{schema}}.complete(array_agg(c.id), 'w1') FROM {{schema}}.claim('default', 'w1', 10000) c`)
	}
	e.Exec(`SELECT {{schema}}.fail(c.id, 'w1', 'no handler', false) FROM {{schema}}.claim('default', 'w1', 50) c`)
	e.Exec(`SELECT {{schema}}.fail(c.id, 'w1', 'boom', true) FROM {{schema}}.claim('default', 'w1', 50) c`)
	e.Exec(`SELECT count(*) FROM {{schema}}.claim('default', 'w2', 40)`)
	e.Exec(`SELECT count(*) FROM {{schema}}.claim('media', 'w2', 60)`)
	e.Exec(`SELECT {{schema}}.next_value('invoice', 's' || g) FROM generate_series(1, 20) g`)
	e.Exec(`SELECT {{schema}}.reserve('invoice', '', 'key-' || g) FROM generate_series(1, 5) g`)
}

// args are the arguments Read passes to each query, by file name, for all
// queues (nil) or one; the estimate_* queries are only ever EXPLAINed
// (planned, never executed), so they need no plan check.
func queryArgs(queue any) map[string][]any {
	return map[string][]any{
		"clock":         nil,
		"running":       {runningLimit + 1},
		"open":          {queue, DefaultLimit + 1, maxPriorities},
		"lanes":         {queue, DefaultLimit + 1, maxPriorities},
		"scheduled":     {queue, DefaultLimit + 1},
		"finished":      {queue, DefaultLimit + 1},
		"limits":        {queue},
		"workers":       {deadWorkersListed},
		"worker_counts": nil,
		"leader":        nil,
		"counters":      {DefaultLimit + 1},
		"reservations":  {DefaultLimit + 1},
		"partitions":    {queue, DefaultLimit + 1},
		"key_waits":     {queue, DefaultLimit + 1, KeysProbed, LongestWaitsListed},
	}
}

var (
	planRowsRE = regexp.MustCompile(`actual time=[0-9.]+\.\.[0-9.]+ rows=(\d+)`)
	removedRE  = regexp.MustCompile(`Rows Removed by (?:Filter|Index Recheck): (\d+)`)
)

// Every query of status, on a table of 100,000 tasks seeded and worked by
// the runtime and ANALYZEd: no plan scans the tasks table, every scan of it
// goes through an index and reads at most the count limit.
func TestQueryPlansNeverScanTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, seedConfig)
	e.seed(100_000)
	e.admit("render", "thumb")
	e.seedActivity()
	// More keys with work than a count reads.
	const keys = DefaultLimit + 2_000
	e.seedKeys(keys)
	e.Exec(`ANALYZE {{schema}}.tasks`)
	e.Exec(`ANALYZE {{schema}}.partition_slots`)

	entries, err := fs.ReadDir(queries, "sql")
	require.NoError(t, err)
	var names []string
	for _, en := range entries {
		name := strings.TrimSuffix(en.Name(), ".sql")
		if !strings.HasPrefix(name, "estimate_") && !strings.HasSuffix(name, beforePartitions) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, queue := range []any{nil, "default", "media", "tenants"} {
		args := queryArgs(queue)
		for _, name := range names {
			a, ok := args[name]
			require.True(t, ok, "sql/%s.sql has no arguments in queryArgs: add them, so its plan is checked", name)
			plan := e.explain(query(name, e.Schema), a...)
			require.NotContains(t, plan, "Seq Scan on tasks", "%s (queue %v) scans tasks:\n%s", name, queue, plan)
			require.NotContains(t, plan, "Sample Scan on tasks", name)
			for _, line := range strings.Split(plan, "\n") {
				if strings.Contains(line, " on partition_slots ") {
					// Keys are read by their primary key, a range per type.
					require.Regexp(t, `Index (Only )?Scan using partition_slots_pkey on partition_slots`, line, name)
				} else if !strings.Contains(line, " on tasks ") {
					continue
				} else {
					require.Regexp(t, `Index (Only )?Scan( Backward)? using tasks_\w+ on tasks`, line, name)
				}
				if m := planRowsRE.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					require.LessOrEqual(t, n, DefaultLimit+1, "%s: a scan read too many rows: %s", name, line)
				}
			}
			for _, m := range removedRE.FindAllStringSubmatch(plan, -1) {
				n, _ := strconv.Atoi(m[1])
				require.LessOrEqual(t, n, DefaultLimit+1, "%s: a scan filtered out %d rows:\n%s", name, n, plan)
			}
			if testing.Verbose() {
				t.Logf("%s (queue %v):\n%s", name, queue, plan)
			}
		}
	}

	// And what they read adds up.
	s := e.read(Options{})
	def, media := queueNamed(t, s, "default"), queueNamed(t, s, "media")
	// The newest 10,001 finished tasks hold all of them, but the queue has
	// more finished tasks: lower bounds.
	require.Equal(t, int64(50), def.Failed.Value)
	require.False(t, def.Failed.Exact)
	require.Equal(t, int64(50), def.DeadLetter.Value)
	require.Equal(t, exact(40), def.Running)
	require.False(t, def.Pending.Exact, "more than the limit")
	require.Equal(t, exact(60), media.Running)
	// Reports (unlimited) have the highest priority: the limited types'
	// units are held by open tasks, and their other tasks wait.
	render := limitNamed(t, s, "render")
	require.EqualValues(t, 5, render.Used)
	require.EqualValues(t, 0, render.Free)
	require.Equal(t, "binding", render.State)
	require.False(t, render.Waiting.Exact, "20,000 render tasks, more than the limit")
	require.Equal(t, exact(20), s.Counters[0].Scopes)
	require.Equal(t, exact(5), s.Counters[0].PendingReservations)
	// More keys than a count reads: lower bounds, and the waits of the
	// keys probed.
	digest := partitionNamed(t, s, "digest")
	require.Equal(t, Count{Value: DefaultLimit, Estimate: digest.Keys.Estimate}, digest.Keys)
	require.NotNil(t, digest.Keys.Estimate, "the planner's estimate beside the lower bound")
	require.InDelta(t, keys, float64(*digest.Keys.Estimate), 0.2*keys)
	require.Equal(t, int64(DefaultLimit), digest.AtLimit.Value)
	require.False(t, digest.Waiting.Exact)
	require.Equal(t, KeysProbed, digest.KeysProbed)
	require.True(t, digest.WaitsCapped)
	require.Len(t, digest.LongestWaits, LongestWaitsListed)
	require.Equal(t, "binding", digest.State)

	// Exact with a higher limit: 60,000 email tasks, 20,000 completed, 100
	// failed or dead-lettered, 40 running.
	def = queueNamed(t, e.read(Options{Limit: 100_000}), "default")
	require.Equal(t, exact(60_000-20_000-100-40), def.Pending)
	require.Equal(t, exact(50), def.Failed)
	require.Equal(t, exact(50), def.DeadLetter)
}

// seedMillion adds 1,000,000 due email tasks over three priorities, the
// oldest an hour old — inserted directly, the fastest way to make a million
// (as the claim's plan tests do) — and 100,000 more through the runtime
// beside them; then VACUUM ANALYZE, as autovacuum would.
func (e *env) seedPending(n int) {
	e.T.Helper()
	e.Exec(`INSERT INTO {{schema}}.tasks (queue, type, priority, run_at)
	        SELECT 'default', 'email', (g % 3) - 1, now() - interval '1 hour' + g * interval '1 millisecond'
	        FROM generate_series(1, $1) g`, n)
	e.seed(100_000)
	e.Exec(`VACUUM ANALYZE {{schema}}.tasks`)
}

// explain runs sql under EXPLAIN (ANALYZE, BUFFERS) and returns the plan.
func (e *env) explain(sql string, args ...any) string {
	e.T.Helper()
	tx, err := e.Pool.BeginTx(bg, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	require.NoError(e.T, err)
	defer tx.Rollback(bg) //nolint:errcheck // read only
	// With Read's planner settings.
	for _, s := range settings {
		_, err = tx.Exec(bg, s)
		require.NoError(e.T, err)
	}
	rows, err := tx.Query(bg, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	require.NoError(e.T, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(e.T, err)
	return strings.Join(lines, "\n")
}

// A queue with far more pending tasks than status counts exactly: the
// counts stop at the limit and the planner's estimate stands beside them.
// (How fast a read is with 1,000,000 pending is BenchmarkReadMillionPending's
// job, not a test's.)
func TestReadBeyondTheCountLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, seedConfig)
	const pending = 200_000
	e.seedPending(pending)

	s := e.read(Options{})
	def := queueNamed(t, s, "default")
	require.False(t, def.Ready.Exact)
	require.EqualValues(t, DefaultLimit, def.Ready.Value)
	require.NotNil(t, def.Ready.Estimate, "the planner's estimate beside the lower bound")
	require.InDelta(t, pending+50_000, float64(*def.Ready.Estimate), 0.3*(pending+50_000))
	require.InDelta(t, 3600, def.OldestDue.Seconds, 60)
}

// BenchmarkReadMillionPending measures Read with 1,000,000 pending tasks
// (go test ./status -run '^$' -bench ReadMillion).
func BenchmarkReadMillionPending(b *testing.B) {
	e := newEnv(b, seedConfig)
	e.seedPending(1_000_000)
	b.ResetTimer()
	for b.Loop() {
		e.read(Options{})
	}
}
