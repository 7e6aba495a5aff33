package migrations_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// A completion whose types' lanes are empty reads them once and writes no
// task: the offer returns after its read (migration 037), and the units go
// back to their groups.
func TestOfferStopsWhenNobodyWaits(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("a", 100), task("b", 100)))
	r.register("w")
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, inTurn([]string{"a", "b"}, 40))
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 40)
	require.NoError(t, err)
	require.Len(t, ids, 40)

	plans, _, _ := r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, ids)
	read := planOf(t, plans, "array_agg(w.grp), array_agg(w.take)")
	require.Contains(t, read, "FOR UPDATE SKIP LOCKED")
	all := strings.Join(plans, "\n")
	require.NotContains(t, all, "slot_group = n.grp", "an offer that found nobody ran its update")

	var used int
	r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots`)
	require.Zero(t, used, "units held after every task completed")
	r.RequireInvariants()
}

// An offer whose lanes hold fewer tasks than it has units passes each
// type's units to that type's tasks, as many as its lane has, and leaves
// the rest, each unit once: a type with more tasks than units, one with
// fewer, one with none, in one completion.
func TestOfferPassesEachTypesUnitsToItsOwnLane(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("a", 3), task("b", 2), task("c", 2)))
	r.register("w")
	// a: 3 open, 1 waiting; b: 2 open, 3 waiting; c: 2 open, none waiting.
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`,
		[]string{"a", "a", "a", "a", "b", "b", "b", "b", "b", "c", "c"})
	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 100)
	require.NoError(t, err)
	require.Len(t, ids, 7, "the open tasks, one per unit")

	var taken []int64
	r.Scalar(&taken, `SELECT array_agg(id ORDER BY id) FROM {{schema}}.complete_and_take($1, 'w') WHERE id IS NOT NULL`, ids)
	require.Len(t, taken, 3, "a's one waiting task and two of b's, taken by the completing worker")

	type row struct {
		Type    string
		Used    int
		Holders int
		Waiting int
	}
	var got []row
	rows, err := r.Pool.Query(bg, r.SQL(`
		SELECT tt.name,
		       (SELECT coalesce(sum(s.used), 0)::int FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name),
		       (SELECT count(*)::int FROM {{schema}}.tasks t WHERE t.type = tt.name AND t.slot_group IS NOT NULL),
		       (SELECT count(*)::int FROM {{schema}}.tasks t WHERE t.type = tt.name AND t.status = 'pending' AND t.gate = 'waiting')
		FROM {{schema}}.task_types tt ORDER BY tt.name`))
	require.NoError(t, err)
	for rows.Next() {
		var x row
		require.NoError(t, rows.Scan(&x.Type, &x.Used, &x.Holders, &x.Waiting))
		got = append(got, x)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []row{
		{Type: "a", Used: 1, Holders: 1, Waiting: 0},
		{Type: "b", Used: 2, Holders: 2, Waiting: 1},
		{Type: "c", Used: 0, Holders: 0, Waiting: 0},
	}, got)
	r.RequireInvariants()
}

// Two completions hand off from one lane at once: the second's offer skips
// the lane task the first holds (SKIP LOCKED) without waiting for it, takes
// the next one if there is one, and otherwise gives its unit back. Forced:
// the first completion's transaction stays open while the second runs.
func TestOfferSkipsALaneTaskAnotherCompletionHolds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		waiting int // lane tasks behind the two running ones
		used    int // units in use once both completions commit
	}{
		{name: "the held task is the lane's last", waiting: 1, used: 1},
		{name: "another task waits behind it", waiting: 2, used: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRT(t, state(queueCfg("q"), task("t", 2)))
			r.register("w")
			r.enqueueN("t", 2+c.waiting)
			ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
			require.NoError(t, err)
			require.Len(t, ids, 2, "one task a unit")

			first := r.session()
			first.Exec(`BEGIN`)
			first.Exec(`SELECT {{schema}}.complete($1, 'w')`, []int64{ids[0]}) // passes its unit to the lane's head, uncommitted
			second := r.session()
			require.NoError(t, wait(t, second.async(`SELECT {{schema}}.complete($1, 'w')`, []int64{ids[1]})),
				"the second completion waited for the first")
			first.Exec(`COMMIT`)

			var used, open, waiting int
			r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots WHERE task_type = 't'`)
			r.Scalar(&open, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending' AND gate = 'open' AND slot_group IS NOT NULL`)
			r.Scalar(&waiting, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending' AND gate = 'waiting'`)
			require.Equal(t, c.used, used, "units in use")
			require.Equal(t, c.used, open, "lane tasks that took a unit")
			require.Zero(t, waiting, "a task left waiting beside a free unit")
			r.RequireInvariants()
		})
	}
}

// An offer passes over, without locking it, a lane task another
// transaction changed after the offer's snapshot was taken (migration
// 038). In READ COMMITTED that happens inside one statement (another
// worker takes the task while the offer reads its lane): FOR UPDATE would
// lock the task's newest version, skip it, and keep the lock, so that the
// task's new owner waits for the offer's transaction. Forced here with the
// completion in a REPEATABLE READ transaction, whose snapshot predates the
// other worker's take: before migration 038 its offer failed there
// ("could not serialize access due to concurrent update"); now the unit
// goes to the next task.
func TestOfferPassesOverATaskTakenAfterItsSnapshot(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("t", 2)))
	r.register("w")
	r.enqueueN("t", 4) // two open, two waiting: x, then y
	running, err := claim(bg, r.Pool, r.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, running, 2, "one task a unit")
	var lane []int64
	r.Scalar(&lane, `SELECT array_agg(id ORDER BY id) FROM {{schema}}.tasks WHERE gate = 'waiting'`)
	require.Len(t, lane, 2)
	x, y := lane[0], lane[1]

	completer := r.session()
	completer.Exec(`BEGIN ISOLATION LEVEL REPEATABLE READ`)
	completer.Exec(`SELECT count(*) FROM {{schema}}.tasks`) // the snapshot: x waits in it
	// Meanwhile, in another session, the second task completes and its
	// unit passes to x, which its worker takes.
	var took []int64
	r.Scalar(&took, `SELECT array_agg(id) FROM {{schema}}.complete_and_take($1, 'w') WHERE id IS NOT NULL`, []int64{running[1]})
	require.Equal(t, []int64{x}, took, "x taken after the completer's snapshot")

	completer.Exec(`SELECT {{schema}}.complete($1, 'w')`, []int64{running[0]})
	// x's row is not locked by the completion still open.
	var free int
	r.Scalar(&free, `SELECT count(*) FROM (SELECT 1 FROM {{schema}}.tasks WHERE id = $1 FOR UPDATE SKIP LOCKED) s`, x)
	require.Equal(t, 1, free, "the offer kept a lock on the task it passed over")
	completer.Exec(`COMMIT`)

	var gate string
	r.Scalar(&gate, `SELECT gate::text FROM {{schema}}.tasks WHERE id = $1`, y)
	require.Equal(t, "open", gate, "y took the completed task's unit")
	var used int
	r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots WHERE task_type = 't'`)
	require.Equal(t, 2, used, "x and y hold the two units")
	r.RequireInvariants()
}

// done_before(x, snapshot) is true when transaction x had ended (committed
// or aborted) when the snapshot was taken, and for no transaction (0);
// false for one running then, or begun after.
func TestDoneBefore(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q")))
	xidOf := func(s *session) string {
		var x string
		s.Scalar(&x, `SELECT pg_current_xact_id()::text`)
		return x
	}
	ended := r.session()
	ended.Exec(`BEGIN`)
	endedXID := xidOf(ended)
	ended.Exec(`COMMIT`)
	aborted := r.session()
	aborted.Exec(`BEGIN`)
	abortedXID := xidOf(aborted)
	aborted.Exec(`ROLLBACK`)
	running := r.session()
	running.Exec(`BEGIN`)
	runningXID := xidOf(running)

	var snap string
	r.Scalar(&snap, `SELECT pg_current_snapshot()::text`)

	later := r.session()
	later.Exec(`BEGIN`)
	laterXID := xidOf(later)
	later.Exec(`COMMIT`)
	running.Exec(`COMMIT`) // ended now, but not when snap was taken

	for _, c := range []struct {
		name string
		xid  string
		want bool
	}{
		{"no transaction", "0", true},
		{"committed before", endedXID, true},
		{"aborted before", abortedXID, true},
		{"running then", runningXID, false},
		{"begun after", laterXID, false},
	} {
		var got bool
		// The xid8 as a 32-bit xid, as a row's xmax holds it.
		r.Scalar(&got, `SELECT {{schema}}.done_before(xid($1::xid8), $2::pg_snapshot)`, c.xid, snap)
		require.Equal(t, c.want, got, c.name)
	}
}

// When fewer than 8 tasks wait in all lanes together, one read names the
// types that have any (waiting_types, migration 039): a completion of more
// than 8 types whose units nobody waits for descends none of their lanes,
// neither in its offer nor in its probe before the units go back. With 8
// or more waiting, every lane is descended as before, and the units still
// go to their own type's lane.
func TestCompletionDescendsNoEmptyLane(t *testing.T) {
	t.Parallel()
	names := make([]string, 20)
	types := []catalog.TaskType{task("busy", 1)}
	for i := range names {
		names[i] = fmt.Sprintf("t%02d", i)
		types = append(types, task(names[i], 100))
	}
	r := newRT(t, state(queueCfg("q"), types...))
	r.register("w")
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, inTurn(names, 40))
	var seen []string
	r.Scalar(&seen, `SELECT {{schema}}.waiting_types()`)
	require.Empty(t, seen, "no lane holds a task")
	require.NotNil(t, seen, "every lane read: an empty list, not NULL")

	// A lane descent shows in a plan as a scan of tasks_waiting keyed by
	// the type; executed, it reports its rows.
	descents := func(plan string) int {
		n := 0
		for _, line := range strings.Split(plan, "\n") {
			if strings.Contains(line, "tasks_waiting") && !strings.Contains(line, "never executed") {
				n++
			}
		}
		return n
	}
	complete := func(ids []int64) (offer, probe string) {
		plans, _, _ := r.plansOf(t, `SELECT {{schema}}.complete($1, 'w')`, ids)
		return planOf(t, plans, "array_agg(w.grp), array_agg(w.take)"), planOf(t, plans, "FROM unnest(o_types)")
	}

	ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 20)
	require.NoError(t, err)
	require.Len(t, ids, 20)
	offer, probe := complete(ids)
	require.Zero(t, descents(offer), "the offer descended an empty lane:\n%s", offer)
	require.Zero(t, descents(probe), "the probe descended an empty lane:\n%s", probe)
	r.RequireInvariants()

	// 40 tasks of busy wait behind its one unit: every lane is read.
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, inTurn([]string{"busy"}, 41))
	r.Scalar(&seen, `SELECT {{schema}}.waiting_types()`)
	require.Nil(t, seen, "40 tasks waiting: more than one read takes")
	ids, err = claim(bg, r.Pool, r.Schema, "q", "w", 21)
	require.NoError(t, err)
	require.Len(t, ids, 21, "the other types' last 20 tasks and busy's first")
	offer, probe = complete(ids)
	require.NotZero(t, descents(offer), "the offer read no lane beside 40 waiting tasks:\n%s", offer)
	require.NotZero(t, descents(probe), "the probe read no lane beside 40 waiting tasks:\n%s", probe)

	var opened, waiting int
	r.Scalar(&opened, `SELECT count(*) FROM {{schema}}.tasks WHERE type = 'busy' AND status = 'pending' AND gate = 'open'`)
	r.Scalar(&waiting, `SELECT count(*) FROM {{schema}}.tasks WHERE type = 'busy' AND status = 'pending' AND gate = 'waiting'`)
	require.Equal(t, 1, opened, "busy's unit passed to its next task")
	require.Equal(t, 39, waiting)
	r.RequireInvariants()
}

// several_types decides when a completion reads waiting_types first: more
// than 8 units, not all of one type (migration 039).
func TestSeveralTypes(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q")))
	nine := func(last string) []string {
		return []string{"a", "a", "a", "a", "a", "a", "a", "a", last}
	}
	for _, c := range []struct {
		name  string
		units []string
		want  bool
	}{
		{"none", []string{}, false},
		{"8 units of two types", []string{"a", "b", "a", "b", "a", "b", "a", "b"}, false},
		{"9 units of one type", nine("a"), false},
		{"9 units of two types", nine("b"), true},
		{"9 units, the first one of its type", append([]string{"b"}, nine("a")[1:]...), true},
	} {
		var got bool
		r.Scalar(&got, `SELECT {{schema}}.several_types($1)`, c.units)
		require.Equal(t, c.want, got, c.name)
	}
}
