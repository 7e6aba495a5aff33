package migrations_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// Reserved successors (migration 036): a worker holds, beside each task of
// a binding type it runs, one task of the type's lane with no unit; when a
// running task ends it starts the reservation at once and reports both in
// one complete_and_reserve, which passes the finished task's unit to it.

// reservedRow is one row of complete_and_reserve.
type reservedRow struct {
	Completed int
	ID        *int64
	Type      *string
	Payload   []byte
	Attempts  *int
	Kind      *string
}

// completeAndReserve calls complete_and_reserve and returns the ids it
// handed over, by kind.
func (r *rt) completeAndReserve(worker string, done, started []int64, maxTake *int, maxReserve int) (completed int, kinds map[string][]int64) {
	r.T.Helper()
	rows, err := r.Pool.Query(bg, r.SQL(`SELECT * FROM {{schema}}.complete_and_reserve($1, $2, $3, $4, $5)`),
		done, worker, started, maxTake, maxReserve)
	require.NoError(r.T, err)
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[reservedRow])
	require.NoError(r.T, err)
	kinds = map[string][]int64{}
	for _, row := range got {
		completed = row.Completed
		if row.ID != nil {
			kinds[*row.Kind] = append(kinds[*row.Kind], *row.ID)
		}
	}
	return completed, kinds
}

// reservedOf returns the tasks a worker has reserved.
func (r *rt) reservedOf(worker string) []int64 {
	r.T.Helper()
	return pgseqtest.Column[int64](r.DB, `SELECT id FROM {{schema}}.tasks WHERE worker_id = $1 AND status = 'claimed' ORDER BY id`, worker)
}

// laneHead returns the first n tasks of a type's lane.
func (r *rt) laneHead(taskType string, n int) []int64 {
	r.T.Helper()
	return pgseqtest.Column[int64](r.DB, `SELECT id FROM {{schema}}.tasks WHERE type = $1 AND status = 'pending' AND gate = 'waiting'
		ORDER BY priority DESC, run_at, id LIMIT $2`, taskType, n)
}

func intp(n int) *int { return &n }

// oneReservationBesideALeader registers worker w and an elected leader,
// enqueues 6 tasks of taskType (limited to 2), lets w claim and complete
// one of them reserving a successor, and returns the tasks w claimed (the
// first completed) and the reserved task.
func (r *rt) oneReservationBesideALeader(taskType string) (claimed []int64, reserved int64) {
	r.T.Helper()
	r.register("w")
	r.register("leader")
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(r.T, ok)
	r.enqueueN(taskType, 6)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(r.T, err)
	_, got := r.completeAndReserve("w", first[:1], nil, intp(0), 10)
	require.Len(r.T, got["reserved"], 1)
	return first, got["reserved"][0]
}

func TestCompleteAndReservePassesTheUnitToTheStartedSuccessor(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("bound", 2)))
	r.register("w")
	r.enqueueN("bound", 8)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, first, 2, "the limit binds: two run, six wait in the lane")
	lane := r.laneHead("bound", 6)

	// The first completion takes the lane's head on the freed unit and
	// reserves as many as the worker then runs: two.
	n, got := r.completeAndReserve("w", first[:1], nil, nil, 10)
	require.Equal(t, 1, n)
	require.Equal(t, lane[:1], got["taken"])
	require.Equal(t, lane[1:3], got["reserved"], "two reservations: one per task the worker runs, from the lane's head")
	require.Equal(t, lane[1:3], r.reservedOf("w"))
	require.Empty(t, got["refused"])
	r.RequireInvariants()

	var group int
	r.Scalar(&group, `SELECT slot_group FROM {{schema}}.tasks WHERE id = $1`, first[1])
	// The worker's task first[1] ends; it started lane[1] in its place.
	n, got = r.completeAndReserve("w", first[1:2], lane[1:2], nil, 10)
	require.Equal(t, 1, n)
	require.Empty(t, got["taken"], "the unit went to the started successor, not to the lane")
	require.Empty(t, got["refused"])
	require.Equal(t, lane[3:4], got["reserved"], "topped up to one per running task")
	var status string
	var successorGroup, attempts int
	r.Scalar(&status, `SELECT status::text FROM {{schema}}.tasks WHERE id = $1`, lane[1])
	r.Scalar(&successorGroup, `SELECT slot_group FROM {{schema}}.tasks WHERE id = $1`, lane[1])
	r.Scalar(&attempts, `SELECT attempts FROM {{schema}}.tasks WHERE id = $1`, lane[1])
	require.Equal(t, "running", status)
	require.Equal(t, group, successorGroup, "the successor holds its predecessor's unit")
	require.Equal(t, 1, attempts)
	require.Equal(t, 2, r.running("bound"))
	var used int
	r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots WHERE task_type = 'bound'`)
	require.Equal(t, 2, used)
	require.Equal(t, []int64{lane[2], lane[3]}, r.reservedOf("w"))
	r.RequireInvariants()
}

func TestReservationsFollowWhatTheWorkerRuns(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("bound", 3), task("free", 0), partitionedTask("keyed", 3, 1)))
	r.register("w")
	r.enqueueN("bound", 10)
	r.enqueueN("free", 5)
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 4)
	require.NoError(t, err)
	require.Len(t, ids, 4)
	var bound []int64
	for _, id := range ids {
		var typ string
		r.Scalar(&typ, `SELECT type FROM {{schema}}.tasks WHERE id = $1`, id)
		if typ == "bound" {
			bound = append(bound, id)
		}
	}
	require.Len(t, bound, 3)

	// At most max_reserve in all.
	_, got := r.completeAndReserve("w", bound[:1], nil, intp(0), 1)
	require.Len(t, got["reserved"], 1, "max_reserve bounds the reservations")
	// Never more than the worker runs of the type: it runs two now (one
	// finished and no task taken), and has one reserved.
	_, got = r.completeAndReserve("w", bound[1:2], nil, intp(0), 10)
	require.Len(t, got["reserved"], 0, "one running task of the type, one reservation held already")
	require.Len(t, r.reservedOf("w"), 1)

	r.RequireInvariants()

	// A type without a limit has no lane to reserve from, and a type with
	// a per-key limit is not reserved from: its keys take turns there.
	k := newRT(t, state(queueCfg("q"), task("free", 0), partitionedTask("keyed", 3, 1)))
	k.register("w")
	k.enqueueN("free", 3)
	for _, key := range []string{"a", "a", "b", "b", "c", "c", "d", "d", "e", "e"} {
		k.Exec(`SELECT {{schema}}.enqueue('keyed', partition_key => $1)`, key)
	}
	held, err := claim(bg, k.Pool, k.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, held, 6, "three unlimited tasks and three keyed ones (the type limit)")
	_, got = k.completeAndReserve("w", held, nil, intp(0), 10)
	require.Empty(t, got["reserved"])
	require.Empty(t, k.reservedOf("w"))
	k.RequireInvariants()
}

// partitionedTask is a task type with a type limit and a per-key limit.
func partitionedTask(name string, limit, perKey int) catalog.TaskType {
	tt := task(name, limit)
	tt.Partition = &catalog.Partition{Concurrency: perKey}
	return tt
}

func TestStartedSuccessorWithoutItsPredecessorsUnitIsRefused(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("bound", 2), task("other", 1)))
	r.register("w")
	r.register("x")
	r.enqueueN("bound", 6)
	r.enqueueN("other", 3)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, first, 3) // two of bound, one of other
	boundRunning := r.ids("bound", "running")
	_, got := r.completeAndReserve("w", boundRunning[:1], nil, intp(0), 10)
	require.Len(t, got["reserved"], 1)
	reserved := got["reserved"][0]

	// Reported as started in place of a task of another type: no unit of
	// its type was freed in the call, so it is refused and goes back to
	// its lane, where the unit freed by the first completion is taken
	// again (I5): none is left free beside it.
	otherRunning := r.ids("other", "running")
	_, got = r.completeAndReserve("w", otherRunning, []int64{reserved}, intp(0), 0)
	require.Equal(t, []int64{reserved}, got["refused"])
	var status, gate string
	r.Scalar(&status, `SELECT status::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&gate, `SELECT gate::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	require.NotEqual(t, "claimed", status, "a refused successor is no longer reserved")
	r.RequireInvariants()

	// Another worker's reservation, or a task never reserved, is refused
	// too, and the finished task's unit passes on as usual.
	_, got = r.completeAndReserve("x", nil, nil, nil, 0)
	require.Empty(t, got)
	lane := r.laneHead("bound", 1)
	boundRunning = r.ids("bound", "running")
	_, got = r.completeAndReserve("x", boundRunning[:1], lane, nil, 0)
	require.Equal(t, lane, got["refused"], "a worker cannot start what it has not reserved")
	r.RequireInvariants()
}

func TestRecoveryReturnsReservationsWithTheUnits(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("bound", 2)))
	_, reserved := r.oneReservationBesideALeader("bound")
	var runAt, attemptsBefore string
	r.Scalar(&runAt, `SELECT run_at::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&attemptsBefore, `SELECT attempts::text FROM {{schema}}.tasks WHERE id = $1`, reserved)

	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'w'`)
	r.contactWentOn()
	var result map[string]int
	r.Scalar(&result, `SELECT {{schema}}.run_maintenance('leader')`)
	require.Equal(t, 1, result["reservations_returned"])
	require.Equal(t, 1, result["recovered"], "the running task is recovered; the reservation only returned")
	require.Empty(t, r.reservedOf("w"))

	var status, gate, at, attempts string
	var lastError *string
	r.Scalar(&status, `SELECT status::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&gate, `SELECT gate::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&at, `SELECT run_at::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&attempts, `SELECT attempts::text FROM {{schema}}.tasks WHERE id = $1`, reserved)
	r.Scalar(&lastError, `SELECT last_error FROM {{schema}}.tasks WHERE id = $1`, reserved)
	require.Equal(t, "pending", status)
	require.Equal(t, "open", gate, "back in its lane, it took the unit the recovery freed (I5)")
	require.Equal(t, runAt, at, "a reservation keeps its place in the lane")
	require.Equal(t, attemptsBefore, attempts, "a reservation never ran: no attempt counted")
	require.Nil(t, lastError)
	r.RequireInvariants()
}

// complete_and_reserve starting a successor while the recovery declares its
// worker dead: whichever commits first, no task is left running or
// reserved for a dead worker, and the call does not deadlock with the
// recovery (both lock the worker's task rows in id order first).
func TestCompleteAndReserveRacingRecovery(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("raced", 2)))
	first, one := r.oneReservationBesideALeader("raced")
	reserved := []int64{one}
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'w'`)

	// An apply holds the type's lock: complete_and_reserve stops inside,
	// after the task rows and before the type locks.
	apply := r.session()
	apply.Exec(`BEGIN`)
	apply.Exec(`SELECT {{schema}}.lock_types(ARRAY['raced'], true)`)
	worker := r.session()
	call := worker.async(`SELECT count(*) FROM {{schema}}.complete_and_reserve($1, 'w', $2, NULL, 10)`, first[1:2], reserved)
	pgseqtest.WaitBlockedBy(t, r.Pool, apply.pid)

	leader := r.session()
	r.contactWentOn()
	recovered := leader.async(`SELECT {{schema}}.run_maintenance('leader')`)
	pgseqtest.WaitBlockedBy(t, r.Pool, worker.pid) // the recovery waits for the worker's call
	apply.Exec(`COMMIT`)
	requireNoDeadlock(t, wait(t, call), "complete_and_reserve")
	requireNoDeadlock(t, wait(t, recovered), "run_maintenance")

	var stranded int
	r.Scalar(&stranded, `SELECT count(*) FROM {{schema}}.tasks t JOIN {{schema}}.workers w ON w.id = t.worker_id
		WHERE t.status IN ('running', 'claimed') AND w.dead_at IS NOT NULL`)
	require.Zero(t, stranded, "a task left running or reserved for a worker declared dead")
	r.RequireInvariants()
}

func TestReleaseAndUnregisterReturnReservations(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("bound", 2)))
	r.register("w")
	r.enqueueN("bound", 8)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	_, got := r.completeAndReserve("w", first[:1], nil, nil, 10)
	require.Len(t, got["reserved"], 2)

	// release gives a reservation back (and the running task it names).
	var n int
	r.Scalar(&n, `SELECT {{schema}}.release($1, 'w')`, got["reserved"][:1])
	require.Equal(t, 1, n)
	require.Equal(t, got["reserved"][1:], r.reservedOf("w"))
	require.Equal(t, got["reserved"][:1], r.laneHead("bound", 1), "back at the head of its lane")
	var attempts int
	r.Scalar(&attempts, `SELECT attempts FROM {{schema}}.tasks WHERE id = $1`, got["reserved"][0])
	require.Zero(t, attempts)
	r.RequireInvariants()

	// unregister_worker gives back everything the worker holds.
	r.Scalar(&n, `SELECT {{schema}}.unregister_worker('w')`)
	require.Equal(t, 3, n, "two running tasks and one reservation")
	require.Empty(t, r.reservedOf("w"))
	require.Zero(t, r.running("bound"))
	r.RequireInvariants()
}

// An apply lowering the limit: the type drains, no reservation is made for
// it any more, and one made before starts once on its predecessor's unit
// (running does not rise).
func TestLoweredLimitHonoursReservationsOnceAndMakesNoNewOnes(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("lowered", 3)))
	r.register("w")
	r.enqueueN("lowered", 10)
	first, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, first, 3)
	_, got := r.completeAndReserve("w", first[:1], nil, intp(0), 10)
	reserved := got["reserved"]
	require.Len(t, reserved, 2)

	r.Apply(state(queueCfg("q"), task("lowered", 1)))
	require.True(t, r.draining("lowered"))
	_, got = r.completeAndReserve("w", first[1:2], reserved[:1], nil, 10)
	require.Empty(t, got["refused"], "a reservation made before the apply starts on its predecessor's unit")
	require.Empty(t, got["reserved"], "a draining type reserves nothing")
	require.Empty(t, got["taken"], "a draining type hands nothing over")
	require.Equal(t, 2, r.running("lowered"), "running did not rise")
	r.RequireInvariants()
}
