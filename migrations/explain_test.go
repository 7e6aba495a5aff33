package migrations_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// claimPlans runs one claim on a connection with auto_explain reporting the
// actual plan of every statement inside the function as a NOTICE, and returns
// those plans, the claimed task types and the call's duration.
func (r *rt) claimPlans(t *testing.T, batch int) (plans []string, types []string, took time.Duration) {
	t.Helper()
	plans, rows, took := r.plansOf(t, `SELECT type FROM {{schema}}.claim('q', 'w', $1)`, batch)
	for _, row := range rows {
		types = append(types, row[0].(string))
	}
	return plans, types, took
}

// plansOf runs query on a connection of its own with auto_explain reporting
// the actual plan of every statement, nested ones (inside the functions
// called) included, as a NOTICE, and returns those plans and the query's
// rows and duration.
func (r *rt) plansOf(t *testing.T, query string, args ...any) (plans []string, rows [][]any, took time.Duration) {
	t.Helper()
	return r.plansWith(t, nil, query, args...)
}

// plansWith is plansOf with the session settings set (SET statements)
// run first.
func (r *rt) plansWith(t *testing.T, set []string, query string, args ...any) (plans []string, rows [][]any, took time.Duration) {
	t.Helper()
	conn, read := r.explaining(t, set...)
	defer conn.Close(bg)
	start := time.Now()
	res, err := conn.Query(bg, r.SQL(query), args...)
	require.NoError(t, err)
	rows, err = pgx.CollectRows(res, func(row pgx.CollectableRow) ([]any, error) { return row.Values() })
	require.NoError(t, err)
	took = time.Since(start)
	return read(), rows, took
}

// plansOfApply applies desired on a pool of its own whose connections
// report plans as plansOf's does, and returns the plans of every statement
// the apply ran.
func (r *rt) plansOfApply(t *testing.T, desired catalog.State) []string {
	t.Helper()
	cfg := r.Pool.Config().Copy()
	var read func() []string
	cfg.ConnConfig.OnNotice, read = collectPlans()
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		for _, s := range explainSettings {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	require.NoError(t, err)
	defer pool.Close()
	pgseqtest.Apply(t, pool, r.Schema, desired)
	return read()
}

// explainSettings make a session report the actual plan of every
// statement, nested ones (inside the functions called) included, as a
// NOTICE.
var explainSettings = []string{
	`LOAD 'auto_explain'`,
	`SET auto_explain.log_min_duration = 0`,
	`SET auto_explain.log_analyze = on`,
	`SET auto_explain.log_buffers = on`,
	`SET auto_explain.log_nested_statements = on`,
	`SET auto_explain.log_level = notice`,
}

// collectPlans returns a notice handler that keeps the plans auto_explain
// reports, and read, which returns those kept so far.
func collectPlans() (onNotice func(*pgconn.PgConn, *pgconn.Notice), read func() []string) {
	var mu sync.Mutex
	var plans []string
	onNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(n.Message, "Query Text:") {
			plans = append(plans, n.Message)
		}
	}
	return onNotice, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(plans)
	}
}

// explaining opens a connection that reports plans (explainSettings), with
// the session settings set run; read returns the plans reported so far.
func (r *rt) explaining(t *testing.T, set ...string) (conn *pgx.Conn, read func() []string) {
	t.Helper()
	cfg := r.Pool.Config().ConnConfig.Copy()
	cfg.OnNotice, read = collectPlans()
	conn, err := pgx.ConnectConfig(bg, cfg)
	require.NoError(t, err)
	for _, s := range explainSettings {
		_, err := conn.Exec(bg, s)
		require.NoError(t, err, "%s (auto_explain ships with the PostgreSQL server package; the test role must be allowed to LOAD it)", s)
	}
	for _, st := range set {
		_, err := conn.Exec(bg, st)
		require.NoError(t, err, st)
	}
	return conn, read
}

// seed inserts n pending tasks of a type directly (the fastest way to make a
// million), the oldest first, at a gate: "open" (claimable) or "waiting"
// (a limited type's lane, no unit).
func (r *rt) seed(taskType, gate string, n int, age string) {
	r.T.Helper()
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, gate, run_at)
	        SELECT 'q', $1, $2::{{schema}}.task_gate, now() - $4::interval + g * interval '1 microsecond'
	        FROM generate_series(1, $3::int) g`, taskType, gate, n, age)
}

var (
	// actualRowsRE reads a plan node's actual rows and loops.
	actualRowsRE = regexp.MustCompile(`actual time=[0-9.]+\.\.[0-9.]+ rows=(\d+) loops=(\d+)`)
	removedRE    = regexp.MustCompile(`Rows Removed by Filter: (\d+)`)
)

// scansOnTasks returns the plan lines that scan the tasks table.
func scansOnTasks(plans []string) []string {
	var out []string
	for _, p := range plans {
		for _, line := range strings.Split(p, "\n") {
			if strings.Contains(line, " on tasks") {
				out = append(out, strings.TrimSpace(line))
			}
		}
	}
	return out
}

// requireBounded checks that every scan of tasks is an index scan returning
// at most limit rows, and nothing is filtered out by the hundred thousand.
// With bitmapVia, a bitmap heap scan of tasks is allowed too when every
// bitmap index scan in plans is of one of those (partial) indexes, all of
// whose rows the statement reads: whether the planner reads them through
// a bitmap or an index scan follows ANALYZE's sample of them.
func requireBounded(t *testing.T, plans []string, limit int, bitmapVia ...string) {
	t.Helper()
	all := strings.Join(plans, "\n")
	require.NotContains(t, all, "Seq Scan on tasks", "a claim must never scan the tasks table")
	if len(bitmapVia) == 0 {
		require.NotContains(t, all, "Bitmap Heap Scan on tasks")
	}
	for _, m := range tasksBitmapRE.FindAllStringSubmatch(all, -1) {
		require.Contains(t, bitmapVia, m[1], "a bitmap of %s reads tasks:\n%s", m[1], all)
	}
	for _, line := range scansOnTasks(plans) {
		if m := actualRowsRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			require.LessOrEqual(t, n, limit, "scan returned too many rows: %s", line)
		}
	}
	for _, m := range removedRE.FindAllStringSubmatch(all, -1) {
		n, _ := strconv.Atoi(m[1])
		require.LessOrEqual(t, n, limit, "a scan filtered out %d rows", n)
	}
}

// tasksBitmapRE finds the index of a bitmap index scan of one of tasks'
// indexes (all named tasks_*).
var tasksBitmapRE = regexp.MustCompile(`Bitmap Index Scan on (tasks_\w+)`)

// manyPending is how many pending tasks the plan-shape tests seed: enough
// that a scan of them would show (a plan node reading more than the batch
// fails requireBounded), and a tenth of the seed's 1,000,000, which give
// the same plans in a fraction of the time. The explain scenarios
// (scenarios/explain.hcl, pgseq bench run) check the full 1,000,000.
const manyPending = 100_000

// With 100,000 pending tasks the fast path is one index scan of the
// unlimited lane that reads just the batch.
func TestClaimPlanFastPathWithManyPending(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0)))
	r.seed("free", "open", manyPending, "1 day")
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.register("w")

	plans, types, took := r.claimPlans(t, 100)
	require.Len(t, types, 100)
	all := strings.Join(plans, "\n")
	require.Contains(t, all, "Index Scan using tasks_claimable on tasks")
	for _, line := range strings.Split(all, "\n") {
		if strings.Contains(line, " on concurrency_slots") {
			require.Contains(t, line, "never executed", "no slot row is read on the fast path")
		}
	}
	requireBounded(t, plans, 100)
	t.Logf("claim of 100 from %d pending (fast path): %s\n%s", manyPending, took, all)
}

// The same claim on a plan cached for any batch size (PL/pgSQL's generic
// plan, forced here: the server picks it itself after a few calls when it
// costs no more): it finds the picked tasks by primary key, never by
// hashing the whole table (migration 018; before it, a sequential scan of
// every task on each claim).
func TestClaimGenericPlanFindsTasksByIndex(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0), task("limited", 10)))
	r.seed("free", "open", manyPending, "1 day")
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.register("w")

	for _, limited := range []string{"NULL", "100"} { // both branches of claim_open
		plans, rows, _ := r.plansWith(t, []string{`SET plan_cache_mode = force_generic_plan`},
			`SELECT type FROM {{schema}}.claim('q', 'w', $1, `+limited+`)`, 100)
		require.Len(t, rows, 100)
		all := strings.Join(plans, "\n")
		require.Contains(t, all, "Index Scan using tasks_pkey on tasks", "max_limited %s", limited)
		requireBounded(t, plans, 100)
	}
}

// A completion finds its tasks by their ids (tasks_pkey), never through
// tasks_held, whatever the statistics: an ANALYZE taken while nothing ran
// made the generic plan of lock_owned scan every entry tasks_held kept for
// the worker's completed tasks (migration 022).
func TestCompletionFindsTasksByPrimaryKey(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0)))
	r.seed("free", "open", 20000, "1 day")
	r.Exec(`ANALYZE {{schema}}.tasks`) // nothing runs: worker_id is all NULL
	r.register("w")
	// The worker completes 2,000 tasks: their entries stay in tasks_held
	// until a VACUUM.
	for range 20 {
		ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 100)
		require.NoError(t, err)
		r.Exec(`SELECT {{schema}}.complete($1, 'w')`, ids)
	}
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 100)
	require.NoError(t, err)
	plans, rows, _ := r.plansWith(t, []string{`SET plan_cache_mode = force_generic_plan`},
		`SELECT {{schema}}.complete($1, 'w')`, ids)
	require.Equal(t, [][]any{{int32(100)}}, rows)
	all := strings.Join(plans, "\n")
	scans := strings.Join(scansOnTasks(plans), "\n")
	require.Contains(t, scans, "Index Scan using tasks_pkey on tasks")
	require.NotContains(t, scans, "tasks_held", "a completion reads the worker's held tasks:\n%s", all)
	for _, m := range removedRE.FindAllStringSubmatch(all, -1) {
		n, _ := strconv.Atoi(m[1])
		require.LessOrEqual(t, n, 100, "a scan filtered out %d rows", n)
	}
}

// When the oldest 100,000 pending tasks belong to a limited type whose
// slots are all in use, a claim does not look at them: they wait in their
// type's lane, and the claim reads only open tasks (unlimited, or limited
// and holding a unit), by index.
func TestClaimPlanSkipsSaturatedLimitedType(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("blocked", 5), task("free", 0), task("other", 10)))
	r.seed("blocked", "waiting", manyPending, "2 days")
	// The blocked type's 5 units are held by 5 running tasks.
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, worker_id, slot_group)
	        SELECT 'q', 'blocked', 'running', 'elsewhere', g FROM generate_series(1, 5) g`)
	r.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'blocked'`)
	r.seed("free", "open", 1000, "1 day")
	r.seed("other", "waiting", 1000, "1 day 1 hour") // older than free: claimed first, up to its limit
	r.Exec(`SELECT {{schema}}.admit_waiting('other')`)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.register("w")

	plans, types, took := r.claimPlans(t, 100)
	require.Len(t, types, 100)
	counts := map[string]int{}
	for _, ty := range types {
		counts[ty]++
	}
	require.Zero(t, counts["blocked"], "a saturated type admits nothing")
	require.Equal(t, 10, counts["other"], "a limited type admits up to its limit")
	require.Equal(t, 90, counts["free"])

	all := strings.Join(plans, "\n")
	require.Contains(t, all, "Index Scan using tasks_claimable on tasks")
	require.NotContains(t, all, "tasks_waiting", "the claim never reads a lane")
	requireBounded(t, plans, 100)
	r.RequireInvariants()
	t.Logf("claim of 100 with the oldest %d pending blocked: %s\n%s", manyPending, took, all)
}

// A key at its limit with a backlog of manyPending tasks, behind as many
// completed tasks of the same key (kept for retention, first in the
// table): claims, the completion that admits the key's next task, an
// enqueue joining its lane and another key's completion each read a
// bounded number of tasks, by index (issue "Per-key limits": a saturated
// key's backlog is never scanned). The probes that ask whether a key has
// anything waiting are in the index's order: as bare EXISTS probes, the
// planner expected a match at once from a key whose tasks are mostly
// waiting and read the table from its start, through every completed task
// (migration 031).
func TestKeyPlansSkipSaturatedKeyBacklog(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 2, "")))
	r.register("w")
	// Completed tasks of the hot key first, then its backlog, waiting for
	// the key; two of its tasks run elsewhere, holding its 2 units.
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, partition_key, status, completed_at, run_at)
	        SELECT 'q', 'render', 'hot', 'completed', now(), now() - interval '3 days' + g * interval '1 microsecond'
	        FROM generate_series(1, $1::int) g`, manyPending/5)
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, partition_key, gate, key_wait, run_at)
	        SELECT 'q', 'render', 'hot', 'scheduled', true, now() - interval '2 days' + g * interval '1 microsecond'
	        FROM generate_series(1, $1::int) g`, manyPending)
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, partition_key, key_unit, status, worker_id, claimed_at, started_at)
	        SELECT 'q', 'render', 'hot', true, 'running', 'w', now(), now() FROM generate_series(1, 2)`)
	r.Exec(`INSERT INTO {{schema}}.partition_slots (task_type, partition_key, used) VALUES ('render', 'hot', 2)`)
	// Other keys' tasks, open, one each.
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('render'::text, ARRAY[1000]),
	        partition_keys => ARRAY(SELECT 'cold' || g FROM generate_series(1, 1000) g))`)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.checkKeyAccounting()

	check := func(what string, plans []string) {
		t.Helper()
		for _, l := range scansOnTasks(plans) {
			if strings.HasPrefix(strings.TrimPrefix(l, "->  "), "Seq Scan") {
				t.Fatalf("%s: a sequential scan of tasks: %s\nin:\n%s", what, l, planWith(plans, l))
			}
		}
		// Index scans only (a bitmap scan of an empty partial index is
		// one), each returning at most a batch, over all its loops.
		for _, l := range scansOnTasks(plans) {
			if m := actualRowsRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				loops, _ := strconv.Atoi(m[2])
				require.LessOrEqual(t, n*loops, 200, "%s: a scan of tasks returned %d rows: %s\nin:\n%s", what, n*loops, l, planWith(plans, l))
			}
		}
		for _, m := range removedRE.FindAllStringSubmatch(strings.Join(plans, "\n"), -1) {
			n, _ := strconv.Atoi(m[1])
			require.LessOrEqual(t, n, 200, "%s: a scan filtered out %d rows", what, n)
		}
		t.Logf("%s: largest node %s", what, func() string { l, n := largestNode(plans); return fmt.Sprintf("%d rows: %s", n, l) }())
	}
	plans, rows, _ := r.plansOf(t, `SELECT id FROM {{schema}}.claim('q', 'w', 100)`)
	require.Len(t, rows, 100)
	check("claim", plans)
	// The ids are read first: the plans read are the runtime's alone.
	var hot, cold []int64
	r.Scalar(&hot, `SELECT array_agg(id ORDER BY id) FROM {{schema}}.tasks WHERE status = 'running' AND partition_key = 'hot'`)
	r.Scalar(&cold, `SELECT array_agg(id) FROM {{schema}}.tasks WHERE status = 'running' AND partition_key <> 'hot'`)
	plans, _, _ = r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, hot[:1])
	check("completion of a hot task", plans)
	require.Equal(t, 2, r.runningOrOpenOfKey("hot"), "the hot key admitted its next task")
	plans, _, _ = r.plansOf(t, `SELECT {{schema}}.enqueue('render', partition_key => 'hot')`)
	check("enqueue to the hot key", plans)
	plans, _, _ = r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, cold)
	check("completion of cold tasks", plans)
	r.checkKeyAccounting()
}

// A drain of one key's backlog, planned with the statistics of its start
// (every task of the table waiting for the key), reads the key's lane by
// index at each completion, however many completed tasks lie ahead of it
// in the table. On version 30 the key's probe was a sequential scan from
// the table's start, filtering out 500 to 2,000 rows per completion, more
// with each completed task (migration 031). The hand-off's probe of a
// limited type's lane is written the same way now; its case here did not
// bring version 30 to scan, and guards the new form.
func TestKeyProbesReadTheLaneInIndexOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		typ  catalog.TaskType
		keys string
	}{
		{"one key's backlog", partitioned("render", 0, 1000, ""), `array_fill('one'::text, ARRAY[20000])`},
		{"a limited type's lane", task("render", 1000), `NULL`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRT(t, state(queueCfg("q"), c.typ))
			r.register("w")
			r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('render'::text, ARRAY[20000]), partition_keys => ` + c.keys + `)`)
			r.Exec(`ANALYZE {{schema}}.tasks`)
			for i := 0; i < 10; i++ {
				ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 200)
				require.NoError(t, err)
				require.Len(t, ids, 200)
				plans, _, _ := r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, ids)
				for _, l := range scansOnTasks(plans) {
					require.NotContains(t, l, "Seq Scan", "completion %d: %s\nin:\n%s", i, l, planWith(plans, l))
				}
				for _, m := range removedRE.FindAllStringSubmatch(strings.Join(plans, "\n"), -1) {
					n, _ := strconv.Atoi(m[1])
					require.LessOrEqual(t, n, 400, "completion %d: a scan filtered out %d rows", i, n)
				}
			}
		})
	}
}

// runningOrOpenOfKey counts a key's tasks running or admitted (open).
func (r *rt) runningOrOpenOfKey(key string) int {
	r.T.Helper()
	var n int
	r.Scalar(&n, `SELECT count(*)::int FROM {{schema}}.tasks WHERE partition_key = $1 AND key_unit
	              AND status IN ('pending', 'running')`, key)
	return n
}

// largestNode returns the plan line whose node produced the most rows over
// all its loops, and that number.
func largestNode(plans []string) (line string, rows int) {
	for _, p := range plans {
		for _, l := range strings.Split(p, "\n") {
			if m := actualRowsRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				loops, _ := strconv.Atoi(m[2])
				if n*loops > rows {
					line, rows = strings.TrimSpace(l), n*loops
				}
			}
		}
	}
	return line, rows
}

// planWith returns the plan of plans that holds line.
func planWith(plans []string, line string) string {
	for _, p := range plans {
		if strings.Contains(p, line) {
			return p
		}
	}
	return ""
}

// enqueue_batch's work is linear in its batch, however many task types are
// declared: right after an apply (task_types without statistics), the
// planner joined every row of the batch with every declared type, to find
// the rows of limited types (migration 027; before it, 2,000 tasks beside
// 1,000 declared types made a node of 2,000,000 rows, and a call of 10,000
// took 426 ms instead of 100 ms whether its types were limited or not).
//
// Nor does it grow with a type's units: the k-th due task of a limited
// type takes the type's k-th unit. Joined on (type, k), the planner could
// merge on the type alone and compare every task of the type with every
// unit (before migrations 032 and 035, 10,000 tasks of a type limited to
// 500 made 5,000,000 rows and took 822 ms instead of 124; with idempotency
// keys, the units taken after the insert were joined the same way). Nor
// with the tasks kept: the batch's idempotency keys are looked up one
// index probe each (before, a hash join read every task in the table,
// here the 20,000 enqueued first).
func TestEnqueueBatchWorkIsLinearBesideManyTypes(t *testing.T) {
	t.Parallel()
	types := []catalog.TaskType{task("plain", 0), task("wide", 1000), task("wide.keyed", 1000)}
	limited := make([]string, 1000)
	for i := range limited {
		limited[i] = fmt.Sprintf("limited.%04d", i)
		// Limits of 2 (a slot group a unit): the units' lookups read two
		// slot rows a type.
		types = append(types, task(limited[i], 2))
	}
	r := newRT(t, state(queueCfg("q"), types...))
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('plain'::text, ARRAY[20000]),
		idempotency_keys => ARRAY(SELECT 'kept-' || i FROM generate_series(1, 20000) i))`)
	r.Exec(`ANALYZE {{schema}}.tasks`)

	const n = 2000
	keys := numbered("key-", n)
	batches := map[string]struct {
		types, keys []string
	}{
		"one unlimited type":  {types: slices.Repeat([]string{"plain"}, n)},
		"1,000 limited types": {types: inTurn(limited, n)},
		// 1,000 units for 2,000 tasks: taken before the insert, and,
		// with idempotency keys, after it.
		"one type limited to 1,000":                   {types: slices.Repeat([]string{"wide"}, n)},
		"one type limited to 1,000, idempotency keys": {types: slices.Repeat([]string{"wide.keyed"}, n), keys: keys},
	}
	for name, batch := range batches {
		t.Run(name, func(t *testing.T) {
			plans, rows, _ := r.plansOf(t, `SELECT count(*) FROM {{schema}}.enqueue_batch($1, idempotency_keys => $2)`, batch.types, batch.keys)
			require.Equal(t, [][]any{{int64(n)}}, rows)
			line, most := largestNode(plans)
			require.LessOrEqual(t, most, 2*n, "a node made %d rows for %d tasks: %s\n%s", most, n, line, strings.Join(plans, "\n"))
			t.Logf("largest node, %d rows over its loops: %s", most, line)
		})
	}
}

// enqueue_batch's path for new keys (migration 028) does work linear in
// its batch in every call of a session: seven calls of 2,000 tasks of new
// keys of a type limited per key and as a whole (the admitted tasks take
// the type's units in the insert), six of them rolled back, every plan of
// every call read. (The function is planned for each call's arrays,
// plan_cache_mode = force_custom_plan: without it, a generic plan after
// the fifth call of BenchmarkEnqueueBatchSizes once took minutes for
// 20,000 tasks. This test does not bring PL/pgSQL to switch plans: it
// switches only when its cost estimates favour the generic plan.)
func TestEnqueueBatchOfNewKeysStaysLinearAfterFiveCalls(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 1000, 2, "")))
	const n, calls = 2000, 7
	batch := func(call int) string {
		return fmt.Sprintf(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('render'::text, ARRAY[%d]),
			partition_keys => ARRAY(SELECT 'call%d-' || i FROM generate_series(1, %d) i))`, n, call, n)
	}
	var earlier []string
	for call := 1; call < calls; call++ {
		// Rolled back, as a benchmark's rounds are: the table's statistics
		// then say it is empty, and only the batch's own rows are in it.
		earlier = append(earlier, "BEGIN", r.SQL(batch(call)), "ROLLBACK")
	}
	plans, rows, _ := r.plansWith(t, earlier, batch(calls))
	require.Equal(t, [][]any{{int64(n)}}, rows)
	line, most := largestNode(plans)
	require.LessOrEqual(t, most, 2*n, "a node made %d rows for %d tasks: %s", most, n, line)
	t.Logf("largest node over %d calls, %d rows over its loops: %s", calls, most, line)
}

// Every update of tasks the runtime and apply make (claims, with scheduled
// tasks come due too; hand-offs; key admissions; the recovery; an apply
// raising or lowering a limit or removing a partition block) reads only
// the tasks it updates when the statistics say the tasks table is empty
// (ANALYZE after a load was rolled back: pages, no rows), however many
// tasks are due meanwhile (migrations 028, 029 and 030; before, such an
// update could read every task once per task it updated: a claim of 200
// beside 20,000 due tasks, 4,000,000 rows compared, 470-585 ms instead of
// 3-5 ms).
// updateCase is a call (or an apply) whose updates of tasks the two
// statistics tests read, beside due tasks of its types.
type updateCase struct {
	name  string
	types []catalog.TaskType
	// seed enqueues the due tasks; prepare (optional) runs after it.
	seed    string
	prepare func(r *rt)
	// The plans read are run's, a query, or those of applying apply.
	run   string
	apply []catalog.TaskType
}

// Sizes of the statistics tests: due tasks, and the batch a call takes
// (keys, claims, the tasks a worker holds).
const updateDue, updateBatch = 5000, 100

func updateCases() []updateCase {
	const due, batch = updateDue, updateBatch
	enqueue := func(taskType string) string {
		return fmt.Sprintf(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('%s'::text, ARRAY[%d]))`, taskType, due)
	}
	// enqueueKeyed enqueues the due tasks over batch keys, in turn.
	enqueueKeyed := func(taskType string) string {
		return fmt.Sprintf(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('%s'::text, ARRAY[%d]),
			partition_keys => ARRAY(SELECT 'k' || (i %% %d) FROM generate_series(1, %d) i))`, taskType, due, batch, due)
	}
	completeRunning := `SELECT {{schema}}.complete(ARRAY(SELECT id FROM {{schema}}.tasks WHERE status = 'running'), 'w')`
	claimBatch := func(r *rt) {
		_, err := claim(bg, r.Pool, r.Schema, "q", "w", batch)
		require.NoError(r.T.(*testing.T), err)
	}
	return []updateCase{
		{name: "claim", types: []catalog.TaskType{task("plain", 0)}, seed: enqueue("plain"),
			run: fmt.Sprintf(`SELECT count(*) FROM {{schema}}.claim('q', 'w', %d)`, batch)},
		{name: "claim with max_limited", types: []catalog.TaskType{task("plain", 0)}, seed: enqueue("plain"),
			run: fmt.Sprintf(`SELECT count(*) FROM {{schema}}.claim('q', 'w', %d, 10)`, batch)},
		// One type limited to the batch: the claim takes every unit, and
		// its completion hands them to the next tasks of the type's lane.
		{name: "hand-off", types: []catalog.TaskType{task("bound", batch)}, seed: enqueue("bound"), prepare: claimBatch,
			run: `SELECT count(*) FROM {{schema}}.complete_and_take(ARRAY(SELECT id FROM {{schema}}.tasks WHERE status = 'running'), 'w')`},
		// Scheduled tasks come due: the claim moves them to their lanes
		// (admit_due) before it claims.
		{name: "due scheduled tasks", types: []catalog.TaskType{task("later", 0)},
			seed: fmt.Sprintf(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('later'::text, ARRAY[%d]),
				run_ats => array_fill(now() + interval '1 hour', ARRAY[%d]))`, due, due),
			prepare: func(r *rt) { r.Exec(`UPDATE {{schema}}.tasks SET run_at = now() - interval '1 second'`) },
			run:     fmt.Sprintf(`SELECT count(*) FROM {{schema}}.claim('q', 'w', %d)`, batch)},
		// Keys of limit 1 with a task each running and one waiting: the
		// completion admits the waiting ones, open (admit_keys) or, when
		// the type has a limit too, holding a unit of it (its units step).
		{name: "key admission", types: []catalog.TaskType{partitioned("render", 0, 1, "")}, seed: enqueueKeyed("render"),
			prepare: claimBatch, run: completeRunning},
		{name: "key admission of a limited type", types: []catalog.TaskType{partitioned("render", 10*batch, 1, "")},
			seed: enqueueKeyed("render"), prepare: claimBatch, run: completeRunning},
		// As the partitioned drain: keys of limit 2, the type limited too.
		{name: "key admission of a limited type, 2 a key", types: []catalog.TaskType{partitioned("render", 10*batch, 2, "")},
			seed: enqueueKeyed("render"), prepare: claimBatch, run: completeRunning},
		// Tasks with idempotency keys of a limited type are inserted
		// waiting and take their units after the insert.
		{name: "idempotent enqueue of a limited type", types: []catalog.TaskType{task("bound", due+batch)}, seed: enqueue("bound"),
			run: fmt.Sprintf(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('bound'::text, ARRAY[%d]),
				idempotency_keys => ARRAY(SELECT 'once-' || i FROM generate_series(1, %d) i))`, batch, batch)},
		// A worker dies holding a batch: the recovery puts it back.
		{name: "recovery", types: []catalog.TaskType{task("bound", 10*batch)}, seed: enqueue("bound"),
			prepare: func(r *rt) {
				claimBatch(r)
				r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '10 minutes'`)
				r.contactWentOn()
			},
			run: `SELECT {{schema}}.recover_dead_workers()`},
		// A raised limit admits the next tasks of the type's lane
		// (admit_waiting); a lowered one takes units back from tasks not
		// claimed yet (rebalance_units).
		{name: "raised limit", types: []catalog.TaskType{task("bound", batch)}, seed: enqueue("bound"), prepare: claimBatch,
			apply: []catalog.TaskType{task("bound", 2*batch)}},
		{name: "lowered limit", types: []catalog.TaskType{task("bound", 3*batch)}, seed: enqueue("bound"), prepare: claimBatch,
			apply: []catalog.TaskType{task("bound", batch)}},
		// The partition block goes: the keyed pending tasks leave their
		// keys (apply_partitions).
		{name: "partition block removed", types: []catalog.TaskType{partitioned("render", 0, 1, "")}, seed: enqueueKeyed("render"),
			prepare: claimBatch, apply: []catalog.TaskType{task("render", 0)}},
	}
}

// planUpdateCase sets c up on a schema of its own, with the statistics of
// tasks saying it is empty (a load rolled back, then ANALYZE: pages, no
// rows) or, stale false, right (ANALYZE after the seed), and returns the
// plans of its call.
func planUpdateCase(t *testing.T, c updateCase, stale bool) []string {
	r := newRT(t, state(queueCfg("q"), c.types...))
	r.register("w")
	if stale {
		s := r.session()
		s.Exec(`BEGIN`)
		s.Exec(c.seed)
		s.Exec(`ROLLBACK`)
		r.Exec(`ANALYZE {{schema}}.tasks`)
		var pages, tuples float64
		r.Scalar(&pages, `SELECT relpages FROM pg_class WHERE oid = $1::regclass`, r.Schema+".tasks")
		r.Scalar(&tuples, `SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, r.Schema+".tasks")
		require.Positive(t, pages)
		require.Zero(t, tuples)
	}
	r.Exec(c.seed)
	if c.prepare != nil {
		c.prepare(r)
	}
	if !stale {
		r.Exec(`ANALYZE {{schema}}.tasks`)
	}
	if c.apply != nil {
		return r.plansOfApply(t, state(queueCfg("q"), c.apply...))
	}
	plans, _, _ := r.plansOf(t, c.run)
	return plans
}

// checkUpdatePlans fails t when a plan node made more rows over its loops
// than four times the due tasks (every task read once per task updated),
// or read tasks again and again: a scan of tasks run more than once that
// returned more than 10 rows a run (an update bounded to its tasks' ids
// whose bound the plan used alone as the inner side of a join, reading
// every bounded task once per task updated).
func checkUpdatePlans(t *testing.T, plans []string) {
	t.Helper()
	line, most := largestNode(plans)
	t.Logf("slowest statement: %s", slowestStatement(plans))
	require.LessOrEqual(t, most, 4*updateDue, "a node made %d rows beside %d due tasks: %s\nin:\n%s", most, updateDue, line, planWith(plans, line))
	t.Logf("largest node, %d rows over its loops: %s", most, line)
	if line, rows, loops := rescannedTasks(plans); line != "" {
		t.Fatalf("a scan of tasks ran %d times for %d rows each: %s\nin:\n%s", loops, rows, line, planWith(plans, line))
	}
}

// rescannedTasks returns the first scan of tasks in plans run more than
// once for more than 10 rows a run.
func rescannedTasks(plans []string) (line string, rows, loops int) {
	for _, p := range plans {
		for _, l := range strings.Split(p, "\n") {
			if !strings.Contains(l, " on tasks ") {
				continue
			}
			if m := actualRowsRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				k, _ := strconv.Atoi(m[2])
				if k > 1 && n > 10 {
					return strings.TrimSpace(l), n, k
				}
			}
		}
	}
	return "", 0, 0
}

func TestUpdatesReadOnlyTheirTasksWhenStatisticsSayEmpty(t *testing.T) {
	t.Parallel()
	for _, c := range updateCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkUpdatePlans(t, planUpdateCase(t, c, true))
		})
	}
}

// The same calls with the statistics right read no task twice either: a
// bound to the updated tasks' ids (migrations 028-030) that the plan uses
// alone, rescanned for every task it updates, reads every bounded task
// once per task (admit_keys' update of the tasks a completion admits did,
// 4 ms of a 12 ms completion of 94 keyed tasks in the partitioned drain).
func TestUpdatesReadNoTaskTwiceWhenStatisticsAreRight(t *testing.T) {
	t.Parallel()
	for _, c := range updateCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkUpdatePlans(t, planUpdateCase(t, c, false))
		})
	}
}

// durationRE reads a statement's duration from auto_explain's report.
var durationRE = regexp.MustCompile(`duration: ([0-9.]+) ms`)

// slowestStatement returns the duration and first line of the slowest
// statement of plans, for the logs.
func slowestStatement(plans []string) string {
	var most float64
	var first string
	for _, p := range plans {
		m := durationRE.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		d, _ := strconv.ParseFloat(m[1], 64)
		if d >= most {
			most = d
			first = ""
			_, q, _ := strings.Cut(p, "Query Text: ")
			for _, l := range strings.Split(q, "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
					first = l
					break
				}
			}
		}
	}
	return fmt.Sprintf("%.1f ms, %s", most, first)
}

// A completion whose units nobody took probes each of their types' lanes
// once before they go back (hand_off's step 2), not once per unit: on
// version 33, 100 units of one type made 100 probes of the same lane, in
// the partitioned drain 84 a call, each reading past the lane head's
// index entries of tasks already handed on (2.2-3.9 ms a statement,
// auto_explain; migration 034).
func TestHandOffProbesEachLaneOnce(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lim", 100), task("other", 100)))
	r.register("w")
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, inTurn([]string{"lim", "other"}, 200))
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 200)
	require.NoError(t, err)
	require.Len(t, ids, 200)
	plans, _, _ := r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, ids)
	probe := planOf(t, plans, "FROM unnest(o_types)")
	loops := 0
	for _, m := range actualRowsRE.FindAllStringSubmatch(probe, -1) {
		n, _ := strconv.Atoi(m[2])
		loops = max(loops, n)
	}
	require.LessOrEqual(t, loops, 2, "200 units of 2 types probed their lanes %d times:\n%s", loops, probe)
	r.RequireInvariants()
}
