package migrations_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// Per-key limits (migration 019): at most partition.concurrency tasks of
// one key hold a unit of it, and keys take turns.

// partitioned returns a task type of queue q with a per-key limit (and a
// type limit when limit > 0).
func partitioned(name string, limit, perKey int, by string) catalog.TaskType {
	t := task(name, limit)
	t.Partition = &catalog.Partition{Concurrency: perKey, By: by}
	return t
}

// enqueueKeys adds one task per key, in the order given, and returns
// their ids.
func (r *rt) enqueueKeys(taskType string, keys ...string) []int64 {
	r.T.Helper()
	types := make([]string, len(keys))
	for i := range types {
		types[i] = taskType
	}
	var ids []int64
	r.Scalar(&ids, `SELECT array_agg(id) FROM {{schema}}.enqueue_batch($1, partition_keys => $2) AS id`, types, keys)
	return ids
}

// checkKeyAccounting requires, for every key: used = the tasks holding one
// of its units (pending or running), used ≤ the per-key limit unless the
// limit was lowered, no row for a key without work, and no key with a free
// unit beside a waiting task.
func (r *rt) checkKeyAccounting() {
	r.T.Helper()
	var bad []string
	rows, err := r.Pool.Query(bg, r.SQL(`
		WITH holders AS (
			SELECT t.type, t.partition_key, count(*)::int AS n FROM {{schema}}.tasks t
			WHERE t.key_unit AND t.status IN ('pending', 'running') GROUP BY 1, 2
		), waiting AS (
			SELECT t.type, t.partition_key, count(*)::int AS n FROM {{schema}}.tasks t
			WHERE t.key_wait AND t.status = 'pending' GROUP BY 1, 2
		)
		SELECT format('%s/%s: used %s, holders %s, waiting %s, limit %s',
		              coalesce(s.task_type, h.type, w.type), coalesce(s.partition_key, h.partition_key, w.partition_key),
		              s.used, h.n, w.n, tt.partition_limit)
		FROM {{schema}}.partition_slots s
		FULL JOIN holders h ON h.type = s.task_type AND h.partition_key = s.partition_key
		FULL JOIN waiting w ON w.type = coalesce(s.task_type, h.type) AND w.partition_key = coalesce(s.partition_key, h.partition_key)
		LEFT JOIN {{schema}}.task_types tt ON tt.name = coalesce(s.task_type, h.type, w.type)
		WHERE s.used IS DISTINCT FROM h.n AND NOT (s.used = 0 AND h.n IS NULL AND w.n > 0)
		   OR s.task_type IS NULL
		   OR (coalesce(s.used, 0) = 0 AND w.n IS NULL)
		   OR (w.n > 0 AND coalesce(s.used, 0) < tt.partition_limit)`))
	require.NoError(r.T, err)
	bad, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(r.T, err)
	require.Empty(r.T, bad, "partition keys whose accounting is off")
}

// runningPerKey returns the running tasks of a type per key.
func (r *rt) runningPerKey(taskType string) map[string]int {
	r.T.Helper()
	rows, err := r.Pool.Query(bg, r.SQL(`
		SELECT partition_key, count(*)::int FROM {{schema}}.tasks
		WHERE type = $1 AND status = 'running' GROUP BY 1`), taskType)
	require.NoError(r.T, err)
	out := map[string]int{}
	var k string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&k, &n}, func() error { out[k] = n; return nil })
	require.NoError(r.T, err)
	return out
}

func TestPartitionedTypeRunsAtMostItsPerKeyLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 3} {
		t.Run(fmt.Sprintf("type limit %d", limit), func(t *testing.T) {
			t.Parallel()
			r := newRT(t, state(queueCfg("q"), partitioned("render", limit, 2, "")))
			r.register("w1")
			r.enqueueKeys("render", "a", "a", "a", "b", "b", "c")
			r.checkKeyAccounting()

			ids, err := claim(bg, r.Pool, r.Schema, "q", "w1", 100)
			require.NoError(t, err)
			want := map[string]int{"a": 2, "b": 2, "c": 1}
			if limit == 3 {
				// Keys take turns: a, b, c each start one before a or b a second.
				want = map[string]int{"a": 1, "b": 1, "c": 1}
			}
			require.Equal(t, want, r.runningPerKey("render"))
			r.checkKeyAccounting()
			r.RequireInvariants()

			// Completing them admits the next of each key.
			r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, ids)
			r.checkKeyAccounting()
			r.RequireInvariants()
			ids, err = claim(bg, r.Pool, r.Schema, "q", "w1", 100)
			require.NoError(t, err)
			if limit == 0 {
				require.Equal(t, map[string]int{"a": 1}, r.runningPerKey("render"))
			} else {
				// a2 and b2 waited in the type's lane and took the units
				// back; a's completion let a3 in for the third.
				require.Equal(t, map[string]int{"a": 2, "b": 1}, r.runningPerKey("render"))
			}
			r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, ids)
			for range 3 {
				ids, err = claim(bg, r.Pool, r.Schema, "q", "w1", 100)
				require.NoError(t, err)
				r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, ids)
			}
			require.Equal(t, map[string]int{"completed": 6}, r.StatusCounts())
			// Every key row goes with its last unit.
			var rowsLeft int
			r.Scalar(&rowsLeft, `SELECT count(*) FROM {{schema}}.partition_slots`)
			require.Zero(t, rowsLeft)
		})
	}
}

func TestPartitionKeyFromThePayload(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 1, "tenant")))
	r.Exec(`SELECT {{schema}}.enqueue('render', '{"tenant": "acme"}')`)
	r.Exec(`SELECT {{schema}}.enqueue('render', '{"tenant": 42}')`)
	// A key given wins over the payload's.
	r.Exec(`SELECT {{schema}}.enqueue('render', '{"tenant": "acme"}', partition_key => 'other')`)
	keys := pgseqtest.Column[string](r.DB, `SELECT partition_key FROM {{schema}}.tasks ORDER BY id`)
	require.Equal(t, []string{"acme", "42", "other"}, keys)

	for _, sql := range []string{
		`SELECT {{schema}}.enqueue('render', '{"other": 1}')`,
		`SELECT {{schema}}.enqueue('render', NULL)`,
		`SELECT {{schema}}.enqueue('render', '{"tenant": null}')`,
		`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['render', 'render'], ARRAY['{"tenant": "x"}', '{}']::jsonb[])`,
	} {
		_, err := r.Pool.Exec(bg, r.SQL(sql))
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%s: %v", sql, err)
		require.Equal(t, "PS032", pgErr.Code, sql)
		require.Contains(t, pgErr.Message, `"render"`)
	}
	// Nothing of the refused batch was inserted.
	var n int
	r.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks`)
	require.Equal(t, 3, n)
}

// 100 keys each enqueue 20 tasks, one key after the other; per-key limit 5,
// with a type limit of 10 (the keys' tasks admitted by admit_keys) and
// without (admitted in the enqueue's insert, migration 028). After 10% of
// the tasks, at least 90 of the 100 keys have started one (FIFO would have
// served two).
func TestKeysTakeTurns(t *testing.T) {
	t.Parallel()
	for _, typeLimit := range []int{10, 0} {
		t.Run(fmt.Sprintf("type_limit_%d", typeLimit), func(t *testing.T) {
			t.Parallel()
			keysTakeTurns(t, typeLimit)
		})
	}
}

func keysTakeTurns(t *testing.T, typeLimit int) {
	r := newRT(t, state(queueCfg("q"), partitioned("render", typeLimit, 5, "")))
	r.register("w1")
	var keys []string
	for k := range 100 {
		for range 20 {
			keys = append(keys, fmt.Sprintf("k%03d", k))
		}
	}
	r.enqueueKeys("render", keys...)
	started := map[string]bool{}
	done := 0
	for done < len(keys)/10 {
		rows, err := r.Pool.Query(bg, r.SQL(`SELECT id, partition_key FROM {{schema}}.claim('q', 'w1', 10)`))
		require.NoError(t, err)
		var ids []int64
		var id int64
		var key string
		_, err = pgx.ForEachRow(rows, []any{&id, &key}, func() error {
			ids = append(ids, id)
			started[key] = true
			return nil
		})
		require.NoError(t, err)
		require.NotEmpty(t, ids)
		require.LessOrEqual(t, len(ids), 10)
		r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, ids)
		done += len(ids)
	}
	require.GreaterOrEqual(t, len(started), 90, "keys started after %d of %d tasks", done, len(keys))
	r.checkKeyAccounting()
	r.RequireInvariants()

	// A key enqueued last starts within one round of the keys with work:
	// before it start at most one task per key (100), and the tasks that
	// already held their type's units (10, with the type limit).
	r.enqueueKeys("render", "late")
	before := 0
	for {
		require.LessOrEqual(t, before, 100+10, "the late key has not started within one round of the 100 keys")
		rows, err := r.Pool.Query(bg, r.SQL(`SELECT id, partition_key FROM {{schema}}.claim('q', 'w1', 1)`))
		require.NoError(t, err)
		var ids []int64
		var id int64
		var key string
		late := false
		_, err = pgx.ForEachRow(rows, []any{&id, &key}, func() error {
			ids = append(ids, id)
			late = late || key == "late"
			return nil
		})
		require.NoError(t, err)
		require.NotEmpty(t, ids)
		r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, ids)
		if late {
			break
		}
		before++
	}
	t.Logf("the late key started after %d other tasks", before)
	r.checkKeyAccounting()
}

// Concurrent claimers with batches, completions, failures and releases:
// no key ever runs more than its limit, sampled from outside.
func TestPartitionStormStaysWithinLimits(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 8, 2, ""), partitioned("mail", 0, 1, "")))
	var keys []string
	for i := range 600 {
		keys = append(keys, fmt.Sprintf("k%d", i%13))
	}
	r.enqueueKeys("render", keys...)
	r.enqueueKeys("mail", keys[:300]...)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	// An enqueuer beside the claimers: keys whose rows completions delete
	// are created again, by single enqueues and batches admitting them in
	// their inserts (migration 028) and by batches that go through
	// admit_keys (a type limit, an idempotency key).
	enqueued := make(chan struct{})
	go func() {
		defer close(enqueued)
		for i := range 120 {
			k1, k2 := fmt.Sprintf("k%d", i%13), fmt.Sprintf("k%d", (i+5)%13)
			var err error
			switch i % 4 {
			case 0:
				_, err = r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.enqueue('mail', partition_key => $1)`), k1)
			case 1:
				_, err = r.Pool.Exec(bg, r.SQL(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['mail', 'mail'], partition_keys => ARRAY[$1, $2])`), k1, k2)
			case 2:
				_, err = r.Pool.Exec(bg, r.SQL(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['mail', 'render'], partition_keys => ARRAY[$1, $2])`), k1, k2)
			case 3:
				_, err = r.Pool.Exec(bg, r.SQL(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['mail', 'mail'], idempotency_keys => ARRAY[$3, NULL], partition_keys => ARRAY[$1, $2])`), k1, k2, fmt.Sprintf("i%d", i))
			}
			if err != nil {
				errs <- fmt.Errorf("enqueue %d: %w", i, err)
				return
			}
		}
	}()
	for w := range 4 {
		worker := workerName(w)
		r.register(worker)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ids, err := claim(bg, r.Pool, r.Schema, "q", worker, 5)
				if err != nil {
					errs <- err
					return
				}
				if len(ids) == 0 {
					continue
				}
				switch i % 7 {
				case 3:
					_, err = r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.fail($1, $2, 'boom')`), ids[0], worker)
					if err == nil {
						_, err = r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.complete($1, $2)`), ids[1:], worker)
					}
				case 5:
					_, err = r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.release($1, $2)`), ids, worker)
				default:
					_, err = r.Pool.Exec(bg, r.SQL(`SELECT count(*) FROM {{schema}}.complete_and_take($1, $2, 0)`), ids, worker)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	samples := 0
sampling:
	for {
		var over []string
		rows, err := r.Pool.Query(bg, r.SQL(`
			SELECT format('%s/%s: %s running', t.type, t.partition_key, count(*))
			FROM {{schema}}.tasks t JOIN {{schema}}.task_types tt ON tt.name = t.type
			WHERE t.status = 'running'
			GROUP BY t.type, t.partition_key, tt.partition_limit
			HAVING count(*) > tt.partition_limit
			UNION ALL
			SELECT format('%s: %s running', t.type, count(*))
			FROM {{schema}}.tasks t JOIN {{schema}}.task_types tt ON tt.name = t.type
			WHERE t.status = 'running'
			GROUP BY t.type, tt.concurrency
			HAVING count(*) > tt.concurrency`))
		require.NoError(t, err)
		over, err = pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		require.Empty(t, over, "limits exceeded")
		samples++
		var left int
		r.Scalar(&left, `SELECT count(*) FROM {{schema}}.tasks WHERE status NOT IN ('completed', 'failed', 'dead_letter')`)
		select {
		case <-enqueued:
			if left == 0 {
				break sampling
			}
		default:
		}
		select {
		case err := <-errs:
			close(stop)
			wg.Wait()
			t.Fatal(err)
		default:
		}
		require.Less(t, samples, 20000, "the storm did not drain: %d tasks left", left)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	r.checkKeyAccounting()
	r.RequireInvariants()
	var rowsLeft int
	r.Scalar(&rowsLeft, `SELECT count(*) FROM {{schema}}.partition_slots`)
	require.Zero(t, rowsLeft, "key rows left behind")
}

// pgseq apply: a raised per-key limit admits at once, a lowered one
// drains strictly, a removed partition block lets the waiting tasks go.
func TestApplyChangesPerKeyLimits(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 1, "")))
	r.register("w1")
	r.enqueueKeys("render", "a", "a", "a", "a", "b")
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w1", 100)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"a": 1, "b": 1}, r.runningPerKey("render"))

	// Raised to 3: two more of a open at once.
	r.Apply(state(queueCfg("q"), partitioned("render", 0, 3, "")))
	r.checkKeyAccounting()
	more, err := claim(bg, r.Pool, r.Schema, "q", "w1", 100)
	require.NoError(t, err)
	require.Len(t, more, 2)
	require.Equal(t, map[string]int{"a": 3, "b": 1}, r.runningPerKey("render"))

	// Lowered to 1: a runs 3 and admits nothing until they are below 1.
	r.Apply(state(queueCfg("q"), partitioned("render", 0, 1, "")))
	r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, more)
	got, err := claim(bg, r.Pool, r.Schema, "q", "w1", 100)
	require.NoError(t, err)
	require.Empty(t, got, "a key over its lowered limit admits nothing")
	r.checkKeyAccounting()

	// Removed: the waiting task of a opens, running ones finish.
	r.Apply(state(queueCfg("q"), task("render", 0)))
	got, err = claim(bg, r.Pool, r.Schema, "q", "w1", 100)
	require.NoError(t, err)
	require.Len(t, got, 1)
	r.Exec(`SELECT {{schema}}.complete($1, 'w1')`, append(ids, got...))
	var rowsLeft int
	r.Scalar(&rowsLeft, `SELECT count(*) FROM {{schema}}.partition_slots`)
	require.Zero(t, rowsLeft)
	require.Equal(t, map[string]int{"completed": 5}, r.StatusCounts())

	// Deleting a partitioned type with waiting tasks opens them too.
	r.Apply(state(queueCfg("q"), partitioned("render", 2, 1, "")))
	r.enqueueKeys("render", "c", "c")
	r.Apply(state(queueCfg("q")))
	var open int
	r.Scalar(&open, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending' AND gate = 'open' AND NOT key_wait`)
	require.Equal(t, 2, open)
	r.Scalar(&rowsLeft, `SELECT count(*) FROM {{schema}}.partition_slots`)
	require.Zero(t, rowsLeft)
}

// A dead worker's tasks: one recovered to pending keeps its key's unit and
// runs again first; one dead-lettered gives it back, and the key's next
// task takes it. Each key unit goes back once.
func TestRecoveryGivesKeyUnitsBackOnce(t *testing.T) {
	t.Parallel()
	q := queueCfg("q", func(q *catalog.Queue) { q.MaxRetries = 1 })
	r := newRT(t, state(q, partitioned("render", 0, 1, "")))
	r.register("zombie")
	r.register("leader")
	r.enqueueKeys("render", "a", "a", "b")
	ids, err := claim(bg, r.Pool, r.Schema, "q", "zombie", 100)
	require.NoError(t, err)
	require.Len(t, ids, 2) // a1, b1

	recoverZombie := func() map[string]any {
		t.Helper()
		r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '2 seconds' WHERE id = 'zombie'`)
		r.Exec(`SELECT {{schema}}.heartbeat('leader')`)
		var ok bool
		r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
		require.True(t, ok)
		r.contactWentOn()
		var report map[string]any
		r.Scalar(&report, `SELECT {{schema}}.run_maintenance('leader')`)
		return report
	}
	report := recoverZombie()
	require.EqualValues(t, 2, report["recovered"])
	r.checkKeyAccounting()
	var keyWaiting int
	r.Scalar(&keyWaiting, `SELECT count(*) FROM {{schema}}.tasks WHERE key_wait`)
	require.Equal(t, 1, keyWaiting, "a2 still waits: a1 kept a's unit")

	// Claimed again (attempt 2 of 1 retry) and lost again: dead-lettered,
	// their units go back and a2 is admitted.
	r.register("zombie2")
	again, err := claim(bg, r.Pool, r.Schema, "q", "zombie2", 100)
	require.NoError(t, err)
	require.ElementsMatch(t, ids, again)
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '2 seconds' WHERE id = 'zombie2'`)
	report = recoverZombie()
	require.EqualValues(t, 2, report["dead_lettered"])
	r.checkKeyAccounting()
	last, err := claim(bg, r.Pool, r.Schema, "q", "leader", 100)
	require.NoError(t, err)
	require.Len(t, last, 1)
	require.Equal(t, map[string]int{"a": 1}, r.runningPerKey("render"))
	r.Exec(`SELECT {{schema}}.complete($1, 'leader')`, last)
	r.checkKeyAccounting()
	var rowsLeft int
	r.Scalar(&rowsLeft, `SELECT count(*) FROM {{schema}}.partition_slots`)
	require.Zero(t, rowsLeft)
}

// rewrites returns how many rows of tasks and partition_slots the
// session's transaction has updated or deleted so far: 0 when every row
// it wrote was written once.
func (s *session) rewrites(schema string) int64 {
	var n int64
	s.Scalar(&n, `SELECT coalesce(sum(n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables
		WHERE schemaname = $1 AND relname IN ('tasks', 'partition_slots')`, schema)
	return n
}

// drainWithin claims (worker w, 10 at a time) and completes the queue's
// tasks until none is left, requiring after each claim at most typeLimit
// running tasks of the type (when above 0) and perKey per key, then every
// task completed and the accounting exact. held are tasks already running
// for w, completed with the first claim.
func (r *rt) drainWithin(taskType string, typeLimit, perKey int, held ...int64) {
	r.T.Helper()
	for {
		ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
		require.NoError(r.T, err)
		if len(ids) == 0 {
			break
		}
		if typeLimit > 0 {
			require.LessOrEqual(r.T, r.running(taskType), typeLimit)
		}
		for k, n := range r.runningPerKey(taskType) {
			require.LessOrEqual(r.T, n, perKey, "key %s", k)
		}
		r.Exec(`SELECT {{schema}}.complete($1, 'w')`, append(ids, held...))
		held = nil
	}
	var left int
	r.Scalar(&left, `SELECT count(*) FROM {{schema}}.tasks WHERE status <> 'completed'`)
	require.Zero(r.T, left)
	r.checkKeyAccounting()
	r.RequireInvariants()
}

// A batch's keys that have no row yet admit their first tasks in the
// batch's own insert (migration 028): each task and key row is written
// once, the tasks admitted are each key's first in claim order up to its
// limit, with start tags that make keys take turns, as admit_keys would
// have given them; a key whose row exists goes through admit_keys.
func TestEnqueueBatchAdmitsNewKeysInItsInsert(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 2, "")))
	r.register("w")

	s := r.session()
	s.Exec(`BEGIN`)
	var ids []int64
	s.Scalar(&ids, `SELECT array_agg(id) FROM {{schema}}.enqueue_batch(
		ARRAY['render', 'render', 'render', 'render', 'render', 'render'],
		priorities => ARRAY[0, 0, 5, 0, 0, 0],
		partition_keys => ARRAY['a', 'a', 'a', 'b', 'c', 'c']) AS id`)
	require.Zero(t, s.rewrites(r.Schema), "rows of tasks or partition_slots written twice by one enqueue of new keys")
	s.Exec(`COMMIT`)
	require.Len(t, ids, 6)

	// Per task: admitted (open, holding a unit of its key) or waiting in
	// its key's lane, and its start tag against the call's clock.
	type row struct {
		Key       string
		Gate      string
		KeyUnit   bool
		KeyWait   bool
		TagMicros int64
	}
	rows, err := r.Pool.Query(bg, r.SQL(`
		SELECT partition_key, gate::text, key_unit, key_wait,
		       CASE WHEN key_unit THEN (extract(epoch FROM run_at - min(run_at) FILTER (WHERE key_unit) OVER ()) * 1e6)::bigint ELSE -1 END
		FROM {{schema}}.tasks WHERE id = ANY ($1) ORDER BY id`), ids)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	require.NoError(t, err)
	require.Equal(t, []row{
		{"a", "open", true, false, 1},       // a's second in claim order
		{"a", "scheduled", false, true, -1}, // beyond a's limit: in its lane
		{"a", "open", true, false, 0},       // priority 5: a's first
		{"b", "open", true, false, 0},
		{"c", "open", true, false, 0},
		{"c", "open", true, false, 1}, // n = limit: no backlog
	}, got)
	type slot struct {
		Key        string
		Used       int
		HasBacklog bool
	}
	rows, err = r.Pool.Query(bg, r.SQL(`SELECT partition_key, used, last_at IS NOT NULL FROM {{schema}}.partition_slots ORDER BY 1`))
	require.NoError(t, err)
	slots, err := pgx.CollectRows(rows, pgx.RowToStructByPos[slot])
	require.NoError(t, err)
	require.Equal(t, []slot{{"a", 2, true}, {"b", 1, false}, {"c", 2, false}}, slots)
	var lastA, tagA2 string
	r.Scalar(&lastA, `SELECT last_at::text FROM {{schema}}.partition_slots WHERE partition_key = 'a'`)
	r.Scalar(&tagA2, `SELECT run_at::text FROM {{schema}}.tasks WHERE id = $1`, ids[0])
	require.Equal(t, tagA2, lastA, "a's row keeps the start tag of its last admitted task")
	r.checkKeyAccounting()
	r.RequireInvariants()

	// Keys take turns in the claim order: a's priority task, then the first
	// round (b, c), then the second (a, c).
	claimed, err := claim(bg, r.Pool, r.Schema, "q", "w", 5)
	require.NoError(t, err)
	require.Equal(t, []int64{ids[2], ids[3], ids[4], ids[0], ids[5]}, claimed)

	// A call naming a key with a row (a, at its limit) and a new one (d):
	// a's row is locked in key order and read by admit_keys, and a's task
	// waits in its lane; d is admitted in the insert, starting in the
	// round being served. No task or key row is written twice.
	s.Exec(`BEGIN`)
	var more []int64
	s.Scalar(&more, `SELECT array_agg(id) FROM {{schema}}.enqueue_batch(ARRAY['render', 'render'], partition_keys => ARRAY['a', 'd']) AS id`)
	require.Zero(t, s.rewrites(r.Schema), "tasks or key rows written twice by an enqueue of a new key beside an old one")
	s.Exec(`COMMIT`)
	var gates []string
	r.Scalar(&gates, `SELECT array_agg(gate::text || '/' || key_wait::text ORDER BY id) FROM {{schema}}.tasks WHERE id = ANY ($1)`, more)
	require.Equal(t, []string{"scheduled/true", "open/false"}, gates)
	r.checkKeyAccounting()

	// Everything drains, each key within its limit.
	r.drainWithin("render", 0, 2, claimed...)
}

// A single enqueue of a new key admits its task in its insert as the batch
// does (migration 028): the task open (with a unit of its type, when the
// type has a limit too) and holding the key's unit, the row created with
// it, nothing written twice; the key's next enqueue goes through
// admit_keys.
func TestEnqueueAdmitsANewKeyInItsInsert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typeLimit int
		want      []string // gate/key_unit/key_wait of the three tasks
	}{
		{0, []string{"open/true/false", "open/true/false", "scheduled/false/true"}},
		// The type's one unit goes to the first: the second, admitted by
		// its key, waits in the type's lane.
		{1, []string{"open/true/false", "waiting/true/false", "scheduled/false/true"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("type_limit_%d", c.typeLimit), func(t *testing.T) {
			t.Parallel()
			enqueueAdmitsANewKey(t, c.typeLimit, c.want)
		})
	}
}

func enqueueAdmitsANewKey(t *testing.T, typeLimit int, want []string) {
	r := newRT(t, state(queueCfg("q"), partitioned("render", typeLimit, 2, "")))
	s := r.session()
	s.Exec(`BEGIN`)
	var first int64
	s.Scalar(&first, `SELECT {{schema}}.enqueue('render', partition_key => 'k')`)
	require.Zero(t, s.rewrites(r.Schema), "rows of tasks or partition_slots written twice by one enqueue of a new key")
	s.Exec(`COMMIT`)

	second := make([]int64, 2)
	for i := range second {
		r.Scalar(&second[i], `SELECT {{schema}}.enqueue('render', partition_key => 'k')`)
	}
	var states []string
	r.Scalar(&states, `SELECT array_agg(gate::text || '/' || key_unit::text || '/' || key_wait::text ORDER BY id)
		FROM {{schema}}.tasks WHERE id = ANY ($1)`, append([]int64{first}, second...))
	require.Equal(t, want, states)
	var used int
	r.Scalar(&used, `SELECT used FROM {{schema}}.partition_slots WHERE partition_key = 'k'`)
	require.Equal(t, 2, used)
	r.checkKeyAccounting()
	r.RequireInvariants()
}

// An enqueue of a key whose row another transaction is creating, or
// deleting, waits for it (forced: the other transaction held open), then
// counts the key's units from the row as it is after that commit: never
// two rows' worth of admissions for one key. For enqueue_batch (two tasks
// of the key) and enqueue (one), limit 2.
func TestEnqueueOfAKeyRowInFlight(t *testing.T) {
	t.Parallel()
	holds := []struct {
		name string
		// hold runs in the other transaction, left open; it admits one
		// task of the key, or (deleting) leaves the key with none.
		hold     func(r *rt, s *session)
		deleting bool
	}{
		{"created by a single enqueue", func(r *rt, s *session) {
			s.Exec(`SELECT {{schema}}.enqueue('render', partition_key => 'k')`)
		}, false},
		{"created by another batch", func(r *rt, s *session) {
			s.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['render'], partition_keys => ARRAY['k'])`)
		}, false},
		{"deleted by the completion of its last task", func(r *rt, s *session) {
			r.enqueueKeys("render", "k")
			ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
			require.NoError(r.T, err)
			require.Len(r.T, ids, 1)
			s.Exec(`SELECT {{schema}}.complete($1, 'w')`, ids)
			var rows int
			s.Scalar(&rows, `SELECT count(*) FROM {{schema}}.partition_slots`)
			require.Zero(r.T, rows, "the completion deletes the idle key's row")
		}, true},
	}
	callers := []struct {
		name  string
		sql   string
		tasks int
	}{
		{"enqueue_batch", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['render', 'render'], partition_keys => ARRAY['k', 'k'])`, 2},
		{"enqueue", `SELECT {{schema}}.enqueue('render', partition_key => 'k')`, 1},
	}
	for _, h := range holds {
		for _, c := range callers {
			t.Run(h.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 2, "")))
				r.register("w")
				other := r.session()
				other.Exec(`BEGIN`)
				h.hold(r, other)

				caller := r.session()
				done := caller.async(c.sql)
				pgseqtest.WaitBlockedBy(t, r.Pool, other.pid)
				other.Exec(`COMMIT`)
				require.NoError(t, wait(t, done))

				want := min(2, c.tasks+1) // the other's task holds a unit
				if h.deleting {
					want = c.tasks
				}
				var used int
				r.Scalar(&used, `SELECT used FROM {{schema}}.partition_slots WHERE partition_key = 'k'`)
				require.Equal(t, want, used)
				r.checkKeyAccounting()
				r.RequireInvariants()
			})
		}
	}
}

// A batch naming a key with a row and a new one never holds the new key's
// row while it waits for the older key's (forced: another transaction
// holds the older row locked, as an enqueue admitting both keys in key
// order would, then asks for the new key's row). Holding it would lock key
// rows out of their order and deadlock (a version of migration 028 that
// created the new rows first and left the old ones to admit_keys did:
// 40P01); the batch takes all its keys' rows in key order in one
// statement.
func TestEnqueueBatchHoldsNoNewKeyWhileWaitingForAnOldOne(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 0, 2, "")))
	r.enqueueKeys("render", "a")

	holder := r.session()
	holder.Exec(`BEGIN`)
	holder.Exec(`SELECT 1 FROM {{schema}}.partition_slots WHERE task_type = 'render' AND partition_key = 'a' FOR UPDATE`)

	batch := r.session()
	done := batch.async(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['render', 'render'], partition_keys => ARRAY['a', 'b'])`)
	pgseqtest.WaitBlockedBy(t, r.Pool, holder.pid)
	// The next key in order: free, so the holder goes on.
	holder.Exec(`INSERT INTO {{schema}}.partition_slots (task_type, partition_key) VALUES ('render', 'b') ON CONFLICT DO NOTHING`)
	holder.Exec(`ROLLBACK`)
	require.NoError(t, wait(t, done))

	var used []int
	r.Scalar(&used, `SELECT array_agg(used ORDER BY partition_key) FROM {{schema}}.partition_slots`)
	require.Equal(t, []int{2, 1}, used)
	r.checkKeyAccounting()
	r.RequireInvariants()
}

// New keys of a type with a type limit too: their admitted tasks take the
// type's free units in claim order in the insert, and those left without
// one wait in the type's lane, as admit_keys leaves them (migration 028).
func TestEnqueueBatchAdmitsNewKeysOfALimitedType(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), partitioned("render", 3, 2, "")))
	r.register("w")
	s := r.session()
	s.Exec(`BEGIN`)
	var ids []int64
	s.Scalar(&ids, `SELECT array_agg(id) FROM {{schema}}.enqueue_batch(
		ARRAY['render', 'render', 'render', 'render', 'render'],
		partition_keys => ARRAY['a', 'a', 'b', 'c', 'a']) AS id`)
	require.Zero(t, s.rewrites(r.Schema), "rows of tasks or partition_slots written twice by one enqueue of new keys")
	s.Exec(`COMMIT`)

	// Claim order: a's first, b, c (the first round), then a's second.
	// Three units: the first three open, a's second in the type's lane,
	// a's third in its key's lane.
	var states []string
	r.Scalar(&states, `SELECT array_agg(gate::text || '/' || (slot_group IS NOT NULL)::text || '/' || key_unit::text || '/' || key_wait::text ORDER BY id)
		FROM {{schema}}.tasks WHERE id = ANY ($1)`, ids)
	require.Equal(t, []string{
		"open/true/true/false",        // a, turn 1
		"waiting/false/true/false",    // a, turn 2: no unit of the type left
		"open/true/true/false",        // b
		"open/true/true/false",        // c
		"scheduled/false/false/true"}, // a, turn 3: beyond a's limit
		states)
	r.checkKeyAccounting()
	r.RequireInvariants()

	// Everything drains within both limits.
	r.drainWithin("render", 3, 2)
}
