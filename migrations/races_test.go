package migrations_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgcode"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// The races of migration 012, each forced by holding a transaction open in
// a second connection: the interleaving is fixed by the test, not left to
// timing. A step that must wait for another connection is run in a
// goroutine, and the test goes on once PostgreSQL shows it blocked
// (pg_blocking_pids), never after a sleep.

// session is a connection of the test's own, for holding a transaction
// open across runtime calls.
type session struct {
	*pgseqtest.DB
	conn *pgxpool.Conn
	pid  uint32
}

func (r *rt) session() *session {
	r.T.Helper()
	c, err := r.Pool.Acquire(bg)
	require.NoError(r.T, err)
	r.T.Cleanup(func() {
		// A session left inside a transaction goes back clean.
		_, _ = c.Exec(bg, "ROLLBACK")
		c.Release()
	})
	return &session{DB: r.On(c), conn: c, pid: c.Conn().PgConn().PID()}
}

// async runs sql on the session in a goroutine; the returned channel gets
// its error (nil when it succeeded).
func (s *session) async(sql string, args ...any) <-chan error {
	done := make(chan error, 1)
	go func() {
		rows, err := s.conn.Query(bg, s.SQL(sql), args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		done <- err
	}()
	return done
}

// waitBlocked returns once PostgreSQL shows the backend pid waiting for a
// lock held by blocker, failing the test after 10 s.
func (r *rt) waitBlocked(pid, blocker uint32) {
	r.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var blocked bool
		r.Scalar(&blocked, `SELECT $2::int = ANY (pg_blocking_pids($1::int))`, int64(pid), int64(blocker))
		if blocked {
			return
		}
		if time.Now().After(deadline) {
			r.T.Fatalf("backend %d is not waiting for backend %d after 10 s", pid, blocker)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wait returns what an async call returned, failing the test after 10 s.
func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("a runtime call is still blocked after 10 s")
		return nil
	}
}

// requireNoDeadlock fails on a deadlock (40P01) or any other error.
func requireNoDeadlock(t *testing.T, err error, what string) {
	t.Helper()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgcode.DeadlockDetected {
		t.Fatalf("%s: deadlock: %v", what, err)
	}
	require.NoError(t, err, what)
}

// unitless returns the running tasks of limited types that hold no unit.
func (r *rt) unitless() []int64 {
	r.T.Helper()
	return pgseqtest.Column[int64](r.DB, `
		SELECT t.id FROM {{schema}}.tasks t JOIN {{schema}}.task_types tt ON tt.name = t.type
		WHERE t.status = 'running' AND tt.concurrency IS NOT NULL AND t.slot_group IS NULL ORDER BY t.id`)
}

func (r *rt) draining(taskType string) bool {
	r.T.Helper()
	var d bool
	r.Scalar(&d, `SELECT draining FROM {{schema}}.task_types WHERE name = $1`, taskType)
	return d
}

func (r *rt) ids(taskType, status string) []int64 {
	r.T.Helper()
	return pgseqtest.Column[int64](r.DB, `SELECT id FROM {{schema}}.tasks WHERE type = $1 AND status = $2::text::{{schema}}.task_status ORDER BY id`, taskType, status)
}

// claimWithin claims on queue q until it gets a task or a second passes:
// what an idle worker polling would see.
func (r *rt) claimWithin(worker string) []int64 {
	r.T.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		ids, err := claim(bg, r.Pool, r.Schema, "q", worker, 10)
		require.NoError(r.T, err)
		if len(ids) > 0 || time.Now().After(deadline) {
			return ids
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// 1. An apply lowering a limit while a claim of the type's open tasks is in
// flight: the claim's tasks keep their units, the group they hold drains,
// and the type admits nothing until running is back under the new limit.
func TestApplyLoweringLimitDuringClaimKeepsUnits(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lower", 2)))
	r.register("w")
	r.enqueueN("lower", 2)

	claimer := r.session()
	claimer.Exec(`BEGIN`)
	var n int
	claimer.Scalar(&n, `SELECT count(*) FROM {{schema}}.claim('q', 'w', 2)`)
	require.Equal(t, 2, n)

	r.Apply(state(queueCfg("q"), task("lower", 1))) // while the claim is open
	claimer.Exec(`COMMIT`)

	require.Empty(t, r.unitless(), "a running task of a limited type without a unit")
	r.RequireInvariants()
	require.True(t, r.draining("lower"), "2 running at limit 1: the type drains")

	// One finishes; a new task must wait: 1 running at limit 1.
	running := r.ids("lower", "running")
	r.Exec(`SELECT {{schema}}.complete($1, 'w')`, running[:1])
	r.enqueueN("lower", 1)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Empty(t, ids, "a task admitted while the type is at its limit")
	require.Equal(t, 1, r.running("lower"))
	r.RequireInvariants()

	// The other finishes: the waiting task runs, alone.
	r.Exec(`SELECT {{schema}}.complete($1, 'w')`, running[1:])
	require.Len(t, r.claimWithin("w"), 1)
	require.Equal(t, 1, r.running("lower"))
	require.False(t, r.draining("lower"))
	r.RequireInvariants()
}

// 2. An enqueue racing an apply that removes a limit: the apply waits for
// it, and the unit the enqueue took goes back; when the limit comes back,
// it is exact.
func TestEnqueueRacingLimitRemovalKeepsNoStaleUnit(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("gone", 1)))
	r.register("w")

	enq := r.session()
	enq.Exec(`BEGIN`)
	enq.Exec(`SELECT {{schema}}.enqueue('gone')`) // holds the type's only unit

	applied := make(chan struct{})
	go func() {
		defer close(applied)
		r.Apply(state(queueCfg("q"), task("gone", 0)))
	}()
	pgseqtest.WaitBlockedBy(t, r.Pool, enq.pid)
	enq.Exec(`COMMIT`)
	<-applied
	r.RequireInvariants()
	var held int
	r.Scalar(&held, `SELECT count(*) FROM {{schema}}.tasks WHERE slot_group IS NOT NULL`)
	require.Zero(t, held, "a task of an unlimited type keeps a unit")

	// The limit comes back: the first task runs, a second waits.
	r.Apply(state(queueCfg("q"), task("gone", 1)))
	r.enqueueN("gone", 1)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, ids, 1)
	require.Equal(t, 1, r.running("gone"), "two tasks run at limit 1")
	require.Empty(t, r.unitless())
	r.RequireInvariants()

	// Both finish; every unit is back exactly once.
	r.Exec(`SELECT {{schema}}.complete($1, 'w')`, ids)
	require.Len(t, r.claimWithin("w"), 1)
	r.Exec(`SELECT {{schema}}.complete($1, 'w')`, r.ids("gone", "running"))
	var used int
	r.Scalar(&used, `SELECT coalesce(sum(used), 0)::int FROM {{schema}}.concurrency_slots WHERE task_type = 'gone'`)
	require.Zero(t, used)
	r.RequireInvariants()
}

// A unit given back twice is refused, never clamped.
func TestGiveBackRefusesADoubleRelease(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("twice", 2)))
	_, err := r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.give_back(ARRAY['twice'], ARRAY[1])`))
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "PS030", pgErr.Code)
	require.Contains(t, pgErr.Message, "a slot unit was given back twice: twice group 1")
}

// The same unit given back by two transactions at once: the second, which
// waited for the first's row lock, is refused once the first commits.
func TestGiveBackRefusesAConcurrentDoubleRelease(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("racing", 2)))
	r.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'racing' AND slot_group = 1`)

	first := r.session()
	first.Exec(`BEGIN`)
	first.Exec(`SELECT {{schema}}.give_back(ARRAY['racing'], ARRAY[1])`)
	second := r.session()
	done := second.async(`SELECT {{schema}}.give_back(ARRAY['racing'], ARRAY[1])`)
	pgseqtest.WaitBlockedBy(t, r.Pool, first.pid)
	first.Exec(`COMMIT`)

	var pgErr *pgconn.PgError
	require.ErrorAs(t, wait(t, done), &pgErr)
	require.Equal(t, "PS030", pgErr.Code)
	require.Contains(t, pgErr.Message, "a slot unit was given back twice: racing group 1 (1 given back, 0 lent out)")
	var used int
	r.Scalar(&used, `SELECT used FROM {{schema}}.concurrency_slots WHERE task_type = 'racing' AND slot_group = 1`)
	require.Zero(t, used)
}

// 3a. A completion giving its unit back, open, while an enqueue finds the
// group locked: once both commit the task waits beside a free unit, and
// the next claim admits it (before migration 012, only the leader did).
func TestClaimAdmitsATaskLeftWaitingByACompletion(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("crossed", 1)))
	r.register("w")
	r.enqueueN("crossed", 1)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
	require.NoError(t, err)
	require.Len(t, first, 1)

	completer := r.session()
	completer.Exec(`BEGIN`)
	completer.Exec(`SELECT {{schema}}.complete($1, 'w')`, first) // gives the unit back, uncommitted
	r.enqueueN("crossed", 1)                                     // finds the group locked: waits
	completer.Exec(`COMMIT`)

	require.Len(t, r.claimWithin("w"), 1, "a due task waits beside a free unit with nothing running")
	r.RequireInvariants()
}

// 3b. An enqueue holding the type's last unit rolls back while another
// enqueue of the type commits: the second task is admitted by the next
// claim.
func TestClaimAdmitsATaskLeftWaitingByARollback(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("undone", 1)))
	r.register("w")

	first := r.session()
	first.Exec(`BEGIN`)
	first.Exec(`SELECT {{schema}}.enqueue('undone')`) // takes the unit
	r.enqueueN("undone", 1)                           // waits
	first.Exec(`ROLLBACK`)

	require.Len(t, r.claimWithin("w"), 1, "a due task waits beside a free unit with nothing running")
	r.RequireInvariants()
}

// 4. An enqueue with an idempotency key whose task a completion is
// finishing, while that completion goes on to give back a unit of the group
// the enqueue would take: no deadlock.
func TestEnqueueOfAKeyBeingCompletedDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("keyed", 100))) // 50 groups of 2
	r.register("w")
	r.Exec(`SELECT {{schema}}.enqueue('keyed', NULL, 'k')`)
	r.Exec(`SELECT {{schema}}.enqueue('keyed', NULL, 'other')`)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 2)
	require.NoError(t, err)
	require.Len(t, ids, 2)
	var keyed, other int64
	r.Scalar(&keyed, `SELECT id FROM {{schema}}.tasks WHERE idempotency_key = 'k'`)
	r.Scalar(&other, `SELECT id FROM {{schema}}.tasks WHERE idempotency_key = 'other'`)
	// The key's task holds a unit of group 1, the other one of group 2: the
	// completion of the first locks group 1, so an enqueue looking for a
	// unit would take group 2's, which the completion of the second gives
	// back.
	r.Exec(`UPDATE {{schema}}.tasks SET slot_group = CASE id WHEN $1 THEN 1 ELSE 2 END WHERE id = ANY ($2)`, keyed, ids)
	r.Exec(`UPDATE {{schema}}.concurrency_slots SET used = CASE WHEN slot_group <= 2 THEN 1 ELSE 0 END WHERE task_type = 'keyed'`)
	r.RequireInvariants()

	completer := r.session()
	completer.Exec(`BEGIN`)
	completer.Exec(`SELECT {{schema}}.complete(ARRAY[$1::bigint], 'w')`, keyed) // the key's task is being updated

	enq := r.session()
	enqueued := enq.async(`SELECT {{schema}}.enqueue('keyed', NULL, 'k')`)
	select {
	case err := <-enqueued:
		requireNoDeadlock(t, err, "enqueue")
	case <-time.After(300 * time.Millisecond):
		// The enqueue waits for the completion (versions before 012).
	}
	completed := completer.async(`SELECT {{schema}}.complete(ARRAY[$1::bigint], 'w')`, other)
	requireNoDeadlock(t, wait(t, completed), "complete")
	completer.Exec(`COMMIT`)
	select {
	case err := <-enqueued:
		requireNoDeadlock(t, err, "enqueue")
	default:
	}
}

// 4. enqueue_batch of keys whose tasks complete_and_take is finishing: no
// deadlock either.
func TestEnqueueBatchOfKeysBeingCompletedDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("batch", 100)))
	r.register("w")
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['batch', 'batch'], NULL, ARRAY['a', 'b'])`)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 2)
	require.NoError(t, err)
	require.Len(t, ids, 2)
	var a, b int64
	r.Scalar(&a, `SELECT id FROM {{schema}}.tasks WHERE idempotency_key = 'a'`)
	r.Scalar(&b, `SELECT id FROM {{schema}}.tasks WHERE idempotency_key = 'b'`)
	r.Exec(`UPDATE {{schema}}.tasks SET slot_group = CASE id WHEN $1 THEN 1 ELSE 2 END WHERE id = ANY ($2)`, a, ids)
	r.Exec(`UPDATE {{schema}}.concurrency_slots SET used = CASE WHEN slot_group <= 2 THEN 1 ELSE 0 END WHERE task_type = 'batch'`)
	r.RequireInvariants()

	completer := r.session()
	completer.Exec(`BEGIN`)
	completer.Exec(`SELECT count(*) FROM {{schema}}.complete_and_take(ARRAY[$1::bigint], 'w')`, a)

	enq := r.session()
	enqueued := enq.async(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['batch', 'batch'], NULL, ARRAY['a', 'new'])`)
	select {
	case err := <-enqueued:
		requireNoDeadlock(t, err, "enqueue_batch")
	case <-time.After(300 * time.Millisecond):
	}
	completed := completer.async(`SELECT count(*) FROM {{schema}}.complete_and_take(ARRAY[$1::bigint], 'w')`, b)
	requireNoDeadlock(t, wait(t, completed), "complete_and_take")
	completer.Exec(`COMMIT`)
	select {
	case err := <-enqueued:
		requireNoDeadlock(t, err, "enqueue_batch")
	default:
	}
}

// 6. complete_and_take handing a task to its worker while the recovery
// declares that worker dead: the task handed over is recovered with the
// others, never left running for a dead worker.
func TestCompleteAndTakeRacingRecoveryLeavesNoTaskToADeadWorker(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("handed", 1)))
	r.register("w")
	r.register("leader")
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)
	r.enqueueN("handed", 2) // one runs, one waits for its unit
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
	require.NoError(t, err)
	require.Len(t, first, 1)
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'w'`)

	// An apply holds the type's lock: complete_and_take stops inside, after
	// the task row and before the hand-off.
	apply := r.session()
	apply.Exec(`BEGIN`)
	apply.Exec(`SELECT {{schema}}.lock_types(ARRAY['handed'], true)`)
	worker := r.session()
	taken := worker.async(`SELECT count(*) FROM {{schema}}.complete_and_take($1, 'w')`, first)
	pgseqtest.WaitBlockedBy(t, r.Pool, apply.pid)

	leader := r.session()
	r.contactWentOn()
	recovered := leader.async(`SELECT {{schema}}.run_maintenance('leader')`)
	pgseqtest.WaitBlockedBy(t, r.Pool, worker.pid) // the recovery waits for the worker's call
	apply.Exec(`COMMIT`)
	require.NoError(t, wait(t, taken))
	require.NoError(t, wait(t, recovered))

	var stranded int
	r.Scalar(&stranded, `SELECT count(*) FROM {{schema}}.tasks t JOIN {{schema}}.workers w ON w.id = t.worker_id
		WHERE t.status = 'running' AND w.dead_at IS NOT NULL`)
	require.Zero(t, stranded, "a task left running for a worker declared dead")
	r.RequireInvariants()
}

// 9. A recovered task's last_error, which claim returns to any worker, does
// not name the dead worker.
func TestRecoveredTaskDoesNotNameItsWorker(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("told", 0)))
	r.register("secret-worker-id")
	r.register("leader")
	r.enqueueN("told", 1)
	_, err := claim(bg, r.Pool, r.Schema, "q", "secret-worker-id", 1)
	require.NoError(t, err)
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'secret-worker-id'`)
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)
	r.contactWentOn()
	r.Exec(`SELECT {{schema}}.run_maintenance('leader')`)

	var lastError string
	r.Scalar(&lastError, `SELECT last_error FROM {{schema}}.claim('q', 'leader', 1)`)
	require.Contains(t, lastError, "stopped heartbeating")
	require.NotContains(t, lastError, "secret-worker-id")
}

// 11. enqueue_batch matches its arrays by index: a multi-dimensional array,
// or one that does not start at 1, is refused instead of dropping keys or
// shifting payloads.
func TestEnqueueBatchRefusesArraysItCannotMatch(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("rows", 0)))
	for name, call := range map[string]string{
		"2-D keys":        `SELECT {{schema}}.enqueue_batch(ARRAY['rows', 'rows'], NULL, ARRAY[['a'], ['b']])`,
		"2-D types":       `SELECT {{schema}}.enqueue_batch(ARRAY[['rows'], ['rows']])`,
		"0-based payload": `SELECT {{schema}}.enqueue_batch(ARRAY['rows', 'rows'], '[0:1]={"{}","{}"}'::jsonb[])`,
		"2-based types":   `SELECT {{schema}}.enqueue_batch('[2:3]={rows,rows}'::text[])`,
	} {
		_, err := r.Pool.Exec(bg, r.SQL(call))
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, name)
		require.Equal(t, "22023", pgErr.Code, name)
		require.Contains(t, pgErr.Message, "one-dimensional and start at index 1", name)
	}
	var n int
	r.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks`)
	require.Zero(t, n, "nothing enqueued")
}

// 5. Scheduled tasks stay out of their type's lane: 200,000 tasks of a
// limited type due tomorrow do not slow the hand-off of one completion.
func TestScheduledTasksStayOutOfTheLane(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("later", 1)))
	r.register("w")
	r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, gate, run_at, priority)
	        SELECT 'q', 'later', 'scheduled', now() + interval '1 day', g % 5
	        FROM generate_series(1, 200000) g`)
	r.Exec(`ANALYZE {{schema}}.tasks`)
	r.enqueueN("later", 1)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
	require.NoError(t, err)
	require.Len(t, ids, 1)

	plans, _, _ := r.plansOf(t, `SELECT count(*) FROM {{schema}}.complete_and_take($1, 'w')`, ids)
	// Every read of tasks returns or filters out at most a handful of rows:
	// the lane probes do not walk past the scheduled tasks.
	requireBounded(t, plans, 10)
	r.RequireInvariants()
}

// 12. An enqueuer that holds a unit (taken by a keyless task, in this call
// or an earlier one of its transaction) never waits for the key of a task
// a completion is finishing: the completion waits for that unit's slot
// row once its offer finds no taker, so the two would wait for each other.
// The completion is held between finishing its task and giving the unit
// back by a third session holding the type's admission lock, which
// hand_off takes just before give_back.
func TestEnqueueHoldingAUnitDoesNotWaitForACompletingKey(t *testing.T) {
	t.Parallel()
	for name, enqueue := range map[string][]string{
		"one enqueue_batch, keyless and keyed": {
			`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['t', 't'], NULL, ARRAY[NULL, 'k'])`,
		},
		"enqueue, then enqueue_batch of the key": {
			`SELECT {{schema}}.enqueue('t')`,
			`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['t'], NULL, ARRAY['k'])`,
		},
		"enqueue, then enqueue of the key": {
			`SELECT {{schema}}.enqueue('t')`,
			`SELECT {{schema}}.enqueue('t', NULL, 'k')`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRT(t, state(queueCfg("q"), task("t", 100))) // 50 groups of 2
			r.register("w")
			r.Exec(`SELECT {{schema}}.enqueue('t', NULL, 'k')`)
			ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
			require.NoError(t, err)
			require.Len(t, ids, 1)
			// The key's task holds a unit of group 1, the only group with a
			// free unit: the enqueue's keyless task takes that one.
			r.Exec(`UPDATE {{schema}}.tasks SET slot_group = 1 WHERE id = $1`, ids[0])
			r.Exec(`UPDATE {{schema}}.concurrency_slots SET used = CASE WHEN slot_group = 1 THEN 1 ELSE capacity END WHERE task_type = 't'`)
			r.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status, worker_id, slot_group, gate)
			        SELECT 'q', 't', 'running', 'w', s.slot_group, 'open'
			        FROM {{schema}}.concurrency_slots s, generate_series(1, s.capacity)
			        WHERE s.task_type = 't' AND s.slot_group > 1`)
			r.RequireInvariants()

			holder := r.session()
			holder.Exec(`BEGIN`)
			holder.Exec(`SELECT {{schema}}.lock_admission(ARRAY['t'])`)
			completer := r.session()
			completed := completer.async(`SELECT {{schema}}.complete(ARRAY[$1::bigint], 'w')`, ids[0])
			r.waitBlocked(completer.pid, holder.pid)

			enq := r.session()
			enq.Exec(`BEGIN`)
			for i, call := range enqueue {
				done := enq.async(call)
				if i < len(enqueue)-1 {
					requireNoDeadlock(t, wait(t, done), call)
					continue
				}
				select {
				case err := <-done:
					requireNoDeadlock(t, err, call)
				case <-time.After(300 * time.Millisecond):
					// Waiting for the completion's key: let the completion
					// go on to the unit's slot row.
					holder.Exec(`COMMIT`)
					requireNoDeadlock(t, wait(t, done), call)
				}
			}
			holder.Exec(`ROLLBACK`)
			enq.Exec(`COMMIT`)
			requireNoDeadlock(t, wait(t, completed), "complete")
			r.RequireInvariants()
		})
	}
}

// 13. An enqueue_batch that must wait for a key (another transaction is
// inserting it) waits holding no unit: its keyless task takes its unit
// after the insert.
func TestEnqueueBatchWaitsForAKeyHoldingNoUnit(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("t", 100))) // 50 groups of 2
	other := r.session()
	other.Exec(`BEGIN`)
	other.Exec(`SELECT {{schema}}.enqueue('t', NULL, 'k')`) // holds one group's row

	enq := r.session()
	done := enq.async(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['t', 't'], NULL, ARRAY[NULL, 'k'])`)
	r.waitBlocked(enq.pid, other.pid)
	var free int
	r.Scalar(&free, `SELECT count(*) FROM (SELECT 1 FROM {{schema}}.concurrency_slots
	                 WHERE task_type = 't' FOR UPDATE SKIP LOCKED) s`)
	require.Equal(t, 49, free, "slot rows not locked while enqueue_batch waits (one is the other enqueue's)")
	other.Exec(`COMMIT`)
	requireNoDeadlock(t, wait(t, done), "enqueue_batch")

	var open, tasks int
	r.Scalar(&tasks, `SELECT count(*) FROM {{schema}}.tasks`)
	r.Scalar(&open, `SELECT count(*) FROM {{schema}}.tasks WHERE gate = 'open'`)
	require.Equal(t, 2, tasks, "the key's task once, and the keyless one")
	require.Equal(t, 2, open, "both admitted")
	r.RequireInvariants()
}

// 14. A completion while an admission of its type is in flight (it holds
// the type's admission lock and has left a task waiting, uncommitted): the
// completion's offer (hand_off step 1) cannot see the task; the completion
// then waits for the admission lock (step 2) and passes its unit to that
// task as soon as the admission commits, with no claim's repair in
// between. A type without a waiting task gives its unit back.
func TestCompletionPassesItsUnitToATaskAnAdmissionInFlightLeftWaiting(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("t", 1), task("idle", 5)))
	r.register("w")
	r.enqueueN("t", 1)
	r.enqueueN("idle", 1)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 2)
	require.NoError(t, err)
	require.Len(t, first, 2, "both hold their type's unit")

	admission := r.session()
	admission.Exec(`BEGIN`)
	admission.Exec(`SELECT {{schema}}.lock_admission(ARRAY['t'])`)
	admission.Exec(`SELECT {{schema}}.enqueue('t')`) // no free unit: waits in the lane, uncommitted
	completer := r.session()
	done := completer.async(`SELECT {{schema}}.complete($1, 'w')`, first)
	r.waitBlocked(completer.pid, admission.pid)
	admission.Exec(`COMMIT`)
	require.NoError(t, wait(t, done))

	var gate string
	var group *int
	r.Scalar(&gate, `SELECT gate::text FROM {{schema}}.tasks WHERE type = 't' AND status = 'pending'`)
	require.Equal(t, "open", gate, "the waiting task took the completed task's unit")
	r.Scalar(&group, `SELECT slot_group FROM {{schema}}.tasks WHERE type = 't' AND status = 'pending'`)
	require.NotNil(t, group)
	var used int
	r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots WHERE task_type = 'idle'`)
	require.Zero(t, used, "a unit nobody waits for goes back")
	r.RequireInvariants()
}
