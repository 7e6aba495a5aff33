package migrations_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/migrations"
)

// The runtime's SQL notifies the channel the Go worker listens on
// (migrations.TasksChannel), with the schema as payload: a completion that
// passes a unit to a waiting task, left open for any worker, wakes them.
func TestTasksChannelIsTheOneTheRuntimeNotifies(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lim", 1)))
	r.register("w")
	r.enqueueN("lim", 2) // one holds the unit, one waits for it
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, ids, 1)

	conn, err := pgx.ConnectConfig(bg, r.Pool.Config().ConnConfig)
	require.NoError(t, err)
	defer conn.Close(bg)
	_, err = conn.Exec(bg, "LISTEN "+pgx.Identifier{migrations.TasksChannel}.Sanitize())
	require.NoError(t, err)
	var n int
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w')`, ids)
	require.Equal(t, 1, n)

	// Parallel tests' schemas notify the same channel: wait for this
	// schema's notification, as a worker filters on the payload.
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	for {
		note, err := conn.WaitForNotification(ctx)
		require.NoError(t, err, "no notification on %s with payload %s", migrations.TasksChannel, r.Schema)
		require.Equal(t, migrations.TasksChannel, note.Channel)
		if note.Payload == r.Schema {
			return
		}
	}
}

// The slot-group maximum has one source, catalog.MaxSlotGroups: the
// planner lays groups out with it, and the runtime's SQL works with
// whatever groups a type's rows hold. No function of the schema carries a
// copy of the number (migration 2's claim did; migration 5 dropped it).
func TestSlotGroupMaximumIsNotInTheSQL(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q")))
	literal := `\m` + strconv.Itoa(catalog.MaxSlotGroups) + `\M`
	var copies []string
	r.Scalar(&copies, `
		SELECT coalesce(array_agg(p.proname::text ORDER BY p.proname), '{}')
		FROM pg_catalog.pg_proc p
		WHERE p.pronamespace = $1::regnamespace AND p.prosrc ~ $2`, r.Schema, literal)
	require.Empty(t, copies, "functions whose source holds %d, catalog.MaxSlotGroups", catalog.MaxSlotGroups)
}

// complete, fail and release change only the tasks the worker still owns
// (lock_owned), each once however often its id is given, and pass on each
// unit once.
func TestOwnershipFence(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lim", 3)))
	r.register("w1")
	r.register("w2")
	r.enqueueN("lim", 5) // 3 hold units, 2 wait
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w1", 3)
	require.NoError(t, err)
	require.Len(t, ids, 3)

	// Another worker owns none of them.
	var n int
	var status *string
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w2')`, ids)
	require.Zero(t, n)
	r.Scalar(&n, `SELECT {{schema}}.release($1, 'w2')`, ids)
	require.Zero(t, n)
	r.Scalar(&status, `SELECT {{schema}}.fail($1, 'w2', 'not mine')`, ids[0])
	require.Nil(t, status)
	require.Equal(t, 3, r.running("lim"))
	r.RequireInvariants()

	// The owner: an id given twice is one task, and one unit passed on.
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w1')`, []int64{ids[0], ids[0]})
	require.Equal(t, 1, n)
	r.RequireInvariants()
	r.Scalar(&n, `SELECT {{schema}}.release($1, 'w1')`, []int64{ids[1], ids[1]})
	require.Equal(t, 1, n)
	r.RequireInvariants()
	r.Scalar(&status, `SELECT {{schema}}.fail($1, 'w1', 'boom')`, ids[2])
	require.NotNil(t, status)
	require.Equal(t, "pending", *status)
	r.RequireInvariants()
	require.Equal(t, map[string]int{"completed": 1, "pending": 4}, r.StatusCounts())
	var used int
	r.Scalar(&used, `SELECT sum(used)::int FROM {{schema}}.concurrency_slots WHERE task_type = 'lim'`)
	require.Equal(t, 3, used, "the 3 units passed to the 3 due tasks (the failed one is scheduled for its retry)")
}

// tasks_held (WHERE status IN ('claimed', 'running'), migration 1) serves
// the runtime's status = 'running' predicates: recovery of dead workers'
// tasks reads the running tasks through it and forgetting a dead worker
// probes it, with 100,000 pending tasks beside them that no plan scans;
// complete reads no more tasks than it completes.
func TestHeldTaskQueriesUseTheirIndexes(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0)))
	r.seed("free", "open", manyPending, "1 day")
	// 20 tasks of a worker that never registered (recovered), and a
	// worker dead for two days that holds none (forgotten).
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, worker_id, attempts)
	        SELECT 'q', 'free', 'running', 'gone', 1 FROM generate_series(1, 20)`)
	r.Exec(`INSERT INTO {{schema}}.workers (id, hostname, pool_size, dead_at) VALUES ('old', 'h', 1, now() - interval '2 days')`)
	// The plans below follow the statistics: the test's own ANALYZE makes
	// them, and no autovacuum's analyze of a busy server (a CI run) may
	// replace them halfway, after the claim below has moved 100 tasks.
	r.Exec(`ALTER TABLE {{schema}}.tasks SET (autovacuum_enabled = off)`)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.register("leader")
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)

	plans, rows, _ := r.plansOf(t, `SELECT {{schema}}.run_maintenance('leader')`)
	report := rows[0][0].(map[string]any)
	require.EqualValues(t, 20, report["recovered"])
	require.EqualValues(t, 1, report["workers_forgotten"])
	recovery := planOf(t, plans, "SELECT array_agg(v.id ORDER BY v.id)")
	require.Contains(t, recovery, "tasks_held", "recovery reads the running tasks by tasks_held")
	// By an index scan or a bitmap of tasks_held: the planner picks
	// either as ANALYZE's sample holds some of the 20 running tasks or
	// none (a bitmap, once in a full run of the package).
	requireBounded(t, []string{recovery}, 20, "tasks_held")
	forget := planOf(t, plans, "WITH forgot AS")
	require.Contains(t, forget, "tasks_held", "forgetting a worker probes tasks_held")
	requireBounded(t, []string{forget}, 20)

	r.register("w")
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 100)
	require.NoError(t, err)
	require.Len(t, ids, 100)
	plans, rows, took := r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, ids)
	require.EqualValues(t, 100, rows[0][0])
	// lock_owned reads the tasks by primary key or the worker's held tasks
	// by tasks_held, whichever the statistics favour: either reads at most
	// what the worker holds.
	require.Regexp(t, `using (tasks_pkey|tasks_held) on tasks`, planOf(t, plans, "FOR UPDATE"))
	requireBounded(t, plans, 100)
	t.Logf("complete of 100 with %d pending: %s\n%s", manyPending, took, strings.Join(plans, "\n"))
}

// planOf returns the one plan among plans whose query text contains what.
func planOf(t *testing.T, plans []string, what string) string {
	t.Helper()
	var found []string
	query := regexp.MustCompile(`(?s)Query Text:(.*?)\n\S`)
	for _, p := range plans {
		if m := query.FindStringSubmatch(p); m != nil && strings.Contains(m[1], what) {
			found = append(found, p)
		}
	}
	require.Len(t, found, 1, "plans of a statement containing %q", what)
	return found[0]
}

// A maintenance pass reads what it removes, not what it keeps: beside
// 50,000 slot groups in use and 100,000 completed tasks still within
// their retention, it deletes the 3 emptied groups a lowered limit left
// and purges the 25 tasks past retention without reading the rest.
// (Before migration 033 the emptied groups were found by a sequential
// scan of every slot row, on every pass: 17 ms a pass at the `many`
// drain's 50,000 rows, and 20,000 types limited to 1,000 make a
// million.)
func TestMaintenanceReadsOnlyWhatItRemoves(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0)))
	r.Exec(`INSERT INTO {{schema}}.concurrency_slots (task_type, slot_group, capacity, used)
	        SELECT 'type.' || (g / 50), g % 50 + 1, 20, g % 3 FROM generate_series(0, 49999) g`)
	r.Exec(`INSERT INTO {{schema}}.concurrency_slots (task_type, slot_group, capacity, used)
	        SELECT 'lowered', g, 0, 0 FROM generate_series(1, 3) g`)
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, completed_at)
	        SELECT 'q', 'free', 'completed', now() - interval '1 minute' FROM generate_series(1, 100000)`)
	// Past retention (completed: 7 days, failed and dead-lettered: 30):
	// 10 + 5 completed, 5 failed, 5 dead-lettered. Within it: 5
	// dead-lettered 10 days ago, older than the completed tasks' retention.
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, completed_at)
	        SELECT 'q', 'free', s::{{schema}}.task_status, now() - age
	        FROM (VALUES ('completed', interval '400 days', 10), ('completed', interval '10 days', 5),
	                     ('failed', interval '400 days', 5), ('dead_letter', interval '400 days', 5),
	                     ('dead_letter', interval '10 days', 5)) v(s, age, n),
	             generate_series(1, v.n)`)
	r.Exec(`ALTER TABLE {{schema}}.tasks SET (autovacuum_enabled = off)`)
	r.Exec(`ALTER TABLE {{schema}}.concurrency_slots SET (autovacuum_enabled = off)`)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.Exec(`ANALYZE {{schema}}.concurrency_slots`)
	r.register("leader")
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)

	plans, rows, _ := r.plansOf(t, `SELECT {{schema}}.run_maintenance('leader')`)
	report := rows[0][0].(map[string]any)
	require.EqualValues(t, 3, report["slot_groups_deleted"])
	require.EqualValues(t, 25, report["purged"])
	require.Equal(t, map[string]int{"completed": 100000, "dead_letter": 5}, r.StatusCounts())

	emptied := planOf(t, plans, "WITH empty AS")
	require.NotContains(t, emptied, "Seq Scan on concurrency_slots", "finding the emptied groups reads every slot row:\n%s", emptied)
	line, most := largestNode([]string{emptied})
	require.LessOrEqual(t, most, 10, "a node made %d rows to find 3 emptied groups: %s\n%s", most, line, emptied)

	// The 25 purged, and the 5 dead letters within their retention passed
	// over.
	purge := planOf(t, plans, "WITH old AS")
	requireBounded(t, []string{purge}, 30)
	line, most = largestNode([]string{purge})
	require.LessOrEqual(t, most, 60, "a node made %d rows to purge 25 tasks: %s\n%s", most, line, purge)
}
