package applier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
	"github.com/pgseq/pgseq/reconcile"
)

// env is one test's schema on the shared test database.
type env struct {
	*pgseqtest.DB
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{pgseqtest.New(t)}
}

func (e *env) ctx() context.Context { return context.Background() }

func (e *env) plan(desired catalog.State) *plan.Plan {
	e.T.Helper()
	actual, _, err := inspect.ReadFor(e.ctx(), e.Pool, e.Schema, desired)
	require.NoError(e.T, err)
	return planner.Plan(desired, actual, planner.Options{Schema: e.Schema})
}

// apply plans and applies desired, then requires that planning again gives
// an empty plan (convergence).
func (e *env) apply(desired catalog.State) *plan.Plan {
	e.T.Helper()
	p := e.plan(desired)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test", Version: "test"})
	require.NoError(e.T, err)
	require.True(e.T, e.plan(desired).Empty(), "plan after apply must be empty")
	return p
}

func (e *env) state() catalog.State {
	e.T.Helper()
	s, _, err := inspect.Read(e.ctx(), e.Pool, e.Schema)
	require.NoError(e.T, err)
	return s
}

// slotsOf returns group → (capacity, used) for a task type.
func (e *env) slotsOf(taskType string) map[int][2]int {
	out := map[int][2]int{}
	for _, g := range catalog.Groups(e.state().Slots) {
		if g.TaskType == taskType {
			out[g.Group] = [2]int{g.Capacity, g.Used}
		}
	}
	return out
}

func capacitySum(m map[int][2]int) int {
	n := 0
	for _, v := range m {
		n += v[0]
	}
	return n
}

func config(limit int, extra ...catalog.TaskType) catalog.State {
	return catalog.State{
		Queues:    []catalog.Queue{catalog.DefaultQueue("default")},
		TaskTypes: append([]catalog.TaskType{{Name: "render", Queue: "default", Concurrency: limit}}, extra...),
	}
}

func TestApplyCreatesSchemaAndConverges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.apply(config(101, catalog.TaskType{Name: "thumb", Queue: "default", Priority: 3}))
	require.Equal(t, plan.Summary{Add: 3}, p.Summary)

	slots := e.slotsOf("render")
	require.Len(t, slots, 34)
	require.Equal(t, 101, capacitySum(slots))
	require.Equal(t, [2]int{2, 0}, slots[34])
	require.Empty(t, e.slotsOf("thumb"), "unlimited types have no slot rows")

	var n int
	e.Scalar(&n, `SELECT count(*) FROM {{schema}}.applies`)
	require.Equal(t, 1, n, "one history row per apply")
}

func TestRaiseLimitKeepsUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(10))
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'render' AND slot_group IN (1, 2, 3)`)

	e.apply(config(500))
	slots := e.slotsOf("render")
	require.Len(t, slots, 50)
	require.Equal(t, 500, capacitySum(slots))
	for g := 1; g <= 3; g++ {
		require.Equal(t, [2]int{10, 1}, slots[g], "group %d keeps its usage", g)
	}
}

func TestLowerLimitDrainsThenTrims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(500))
	// 7 tasks running, held in groups 1, 20 and 50.
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = CASE slot_group WHEN 1 THEN 3 WHEN 20 THEN 2 ELSE 2 END
	        WHERE task_type = 'render' AND slot_group IN (1, 20, 50)`)

	p := e.apply(config(10))
	require.Equal(t, 1, p.Summary.Change)
	slots := e.slotsOf("render")
	require.Equal(t, 10, capacitySum(slots), "live capacities sum to the new limit")
	require.Equal(t, [2]int{1, 3}, slots[1], "group 1 is in the new layout, over capacity")
	require.Equal(t, [2]int{0, 2}, slots[20], "draining: capacity 0, usage kept")
	require.Equal(t, [2]int{0, 2}, slots[50], "draining: capacity 0, usage kept")
	require.Len(t, slots, 12, "10 live groups + 2 draining; the empty surplus groups are deleted")
	used := 0
	for _, v := range slots {
		used += v[1]
	}
	require.Equal(t, 7, used, "lowering never loses usage")

	// The draining groups empty out; the next apply trims them.
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 0 WHERE task_type = 'render' AND slot_group IN (20, 50)`)
	p = e.plan(config(10))
	require.Equal(t, 1, p.Summary.Change, "empty drained groups are trimmed by the next apply")
	e.apply(config(10))
	slots = e.slotsOf("render")
	require.Len(t, slots, 10)
	require.Equal(t, [2]int{1, 3}, slots[1])
}

func TestUsageChangedBetweenPlanAndApplyIsRespected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(100))
	p := e.plan(config(2)) // groups 3..50 are empty at plan time: to delete
	// A task claims group 40 before the apply runs: it must drain, not vanish.
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'render' AND slot_group = 40`)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test"})
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 1}, e.slotsOf("render")[40])
}

func TestRemoveLimitAndTaskType(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(50, catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 5}))
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE slot_group = 1`)

	// Removing the limit deletes the empty slot groups; the one still held
	// drains at capacity 0 until its holder gives its unit back (migration
	// 012: an apply never touches a running task's row).
	e.apply(config(0, catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 5}))
	require.Equal(t, map[int][2]int{1: {0, 1}}, e.slotsOf("render"))
	require.Len(t, e.slotsOf("thumb"), 5)

	// Removing the task type deletes it and its empty groups; the held one drains.
	p := e.apply(config(0))
	require.Equal(t, plan.Summary{Destroy: 1}, p.Summary)
	require.Equal(t, map[int][2]int{1: {0, 1}}, e.slotsOf("thumb"))
	s := e.state()
	require.Len(t, s.TaskTypes, 1)
}

func TestDeleteQueueWithUnfinishedTasksNeedsPermission(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	two := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default"), catalog.DefaultQueue("old")}}
	e.apply(two)
	e.Exec(`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x'), ('old', 'x')`)

	one := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}
	p := e.plan(one)
	require.True(t, p.Changes[0].Destructive)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)
	require.Len(t, e.state().Queues, 2, "nothing applied")

	_, err = reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{AllowDestroy: true})
	require.NoError(t, err)
	require.Len(t, e.state().Queues, 1)
}

func TestDeleteQueueRechecksTasksAtApplyTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default"), catalog.DefaultQueue("old")}})
	p := e.plan(catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}})
	require.False(t, p.Changes[0].Destructive, "empty at plan time")
	e.Exec(`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x')`)
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)
	require.Len(t, e.state().Queues, 2)
}

func TestStalePlanIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(10))
	stale := e.plan(config(20))
	e.apply(config(30)) // another apply lands first
	before := e.state()

	_, err := reconcile.Apply(e.ctx(), e.Pool, stale, applier.Options{})
	require.ErrorIs(t, err, reconcile.ErrStale)
	require.Equal(t, before, e.state(), "database unchanged")
}

func TestConcurrentAppliesNeverInterleave(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(10))

	// Hold the apply lock in another transaction, as a running apply does.
	holder, err := e.Pool.Begin(e.ctx())
	require.NoError(t, err)
	defer holder.Rollback(e.ctx())
	_, err = holder.Exec(e.ctx(), `SET LOCAL application_name = 'pgseq apply (test holder)'`)
	require.NoError(t, err)
	require.NoError(t, applier.Lock(e.ctx(), holder, e.Pool, e.Schema, time.Second))

	// A second apply times out and names the holder.
	p := e.plan(config(20))
	_, err = reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{LockTimeout: 300 * time.Millisecond})
	var lte *applier.LockTimeoutError
	require.True(t, errors.As(err, &lte), "got %v", err)
	require.Len(t, lte.Holders, 1)
	require.Equal(t, "pgseq apply (test holder)", lte.Holders[0].Application)
	require.Contains(t, err.Error(), "pgseq apply (test holder)")
	require.Equal(t, 10, capacitySum(e.slotsOf("render")), "nothing applied")

	// With a longer timeout the second apply waits for the first to finish.
	done := make(chan error, 1)
	go func() {
		_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{LockTimeout: 10 * time.Second})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("apply finished while another held the lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, holder.Rollback(e.ctx()))
	require.NoError(t, <-done)
	require.Equal(t, 20, capacitySum(e.slotsOf("render")))
}

func TestOtherSchemasDoNotShareTheLock(t *testing.T) {
	t.Parallel()
	require.NotEqual(t, applier.LockKey("pgseq"), applier.LockKey("pgseq_staging"))
}

// A task type deleted while it still has pending tasks leaves them to claim
// as unlimited tasks; declared again with a limit, the type takes them back
// into its lane: the limit holds for them too.
func TestRecreatedTypeLimitsItsLeftoverTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	thumb := catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 1}
	e.apply(config(5, thumb))
	e.Exec(`SELECT {{schema}}.enqueue('thumb') FROM generate_series(1, 4)`)

	p := e.plan(config(5))
	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test", Version: "test", AllowDestroy: true})
	require.NoError(t, err)
	e.apply(config(5, thumb))

	e.Exec(`SELECT {{schema}}.register_worker('w', 'host', 10)`)
	var claimed int
	e.Scalar(&claimed, `SELECT count(*) FROM {{schema}}.claim('default', 'w', 10)`)
	require.Equal(t, 1, claimed, "thumb's limit of 1 holds for the tasks left from before it was deleted")
}
