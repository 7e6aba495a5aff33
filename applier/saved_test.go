package applier_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

func (e *env) applies() int {
	e.T.Helper()
	var n int
	e.Scalar(&n, `SELECT count(*) FROM {{schema}}.applies`)
	return n
}

func taskChange(t *testing.T, p *plan.Plan, name string) *plan.Change {
	t.Helper()
	for i := range p.Changes {
		if p.Changes[i].Kind == plan.KindTask && p.Changes[i].Name == name {
			return &p.Changes[i]
		}
	}
	t.Fatalf("no change of task %q", name)
	return nil
}

// A saved plan that plan.Validate accepts but that does not match the
// database it claims to be made from (same fingerprint) is refused: the
// applier plans the plan's own target again under the lock and compares.
// Nothing is applied.
func TestSavedPlanMustMatchTheDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(t *testing.T, p *plan.Plan)
		want string
	}{
		{"a before value the database does not hold", func(t *testing.T, p *plan.Plan) {
			c := taskChange(t, p, "render")
			c.Before.(*catalog.TaskType).Priority = 3
			c.Attributes = catalog.ChangedAttributes(c.Before, c.After)
		}, `task "render": changed in the database since the plan was made: priority 3 -> 0`},
		{"slot groups left out", func(t *testing.T, p *plan.Plan) {
			s := taskChange(t, p, "render").Slots
			s.Set = s.Set[:5]
		}, `task "render": slot groups: the plan would set group:capacity 11:1 12:1 13:1 14:1 15:1; now they need to set group:capacity 11:1`},
		{"a limit edited with its limit_after", func(t *testing.T, p *plan.Plan) {
			c := taskChange(t, p, "render")
			c.After.(*catalog.TaskType).Concurrency = 25
			c.Slots.LimitAfter = 25
		}, `task "render": slot groups: the plan would set group:capacity 11:1`},
		{"a create of an object that exists", func(t *testing.T, p *plan.Plan) {
			c := taskChange(t, p, "render")
			c.Action, c.Before, c.Attributes = plan.Create, nil, nil
			p.Count()
		}, `task "render": the plan would create it; now it would be updated`},
		{"a delete of an object that does not exist", func(t *testing.T, p *plan.Plan) {
			gone := catalog.TaskType{Name: "zz", Queue: "default"}
			p.Changes = append(p.Changes, plan.Change{Address: `task "zz"`, Kind: plan.KindTask, Name: "zz", Action: plan.Delete, Before: &gone})
			p.Count()
		}, `task "zz": the plan would delete it; now it needs no change`},
		{"a task on a queue that would not exist", func(t *testing.T, p *plan.Plan) {
			orphan := catalog.TaskType{Name: "zz", Queue: "nowhere"}
			p.Changes = append(p.Changes, plan.Change{Address: `task "zz"`, Kind: plan.KindTask, Name: "zz", Action: plan.Create, After: &orphan})
			p.Count()
		}, `task "zz" would be on queue "nowhere", which would not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.apply(config(10))
			p := e.plan(config(20))
			tt.edit(t, p)
			require.NoError(t, p.Validate(), "the edit passes the checks made without a database")

			_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test"})
			require.ErrorIs(t, err, reconcile.ErrPlanMismatch)
			require.Contains(t, err.Error(), tt.want)
			require.Equal(t, 10, capacitySum(e.slotsOf("render")), "nothing applied")
			require.Equal(t, 1, e.applies(), "no history row")
		})
	}
}

// Destructiveness is decided under the lock from what the database holds,
// not from the saved plan's flags.
func TestSavedPlanDestructiveFlagIsNotTrusted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	two := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default"), catalog.DefaultQueue("old")}}
	e.apply(two)
	e.Exec(`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x')`)
	p := e.plan(catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}})
	require.True(t, p.Changes[0].Destructive)
	p.Changes[0].Destructive = false
	p.Changes[0].Reasons = nil

	_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{})
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)
	require.Contains(t, err.Error(), "1 unfinished task would be deleted with the queue")
	require.Len(t, e.state().Queues, 2)
}

// A live change that does not touch the plan's objects (another type's
// drained groups emptied, tasks started) leaves a saved plan applicable.
func TestSavedPlanSurvivesLiveChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(config(500, catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 100}))
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'thumb' AND slot_group = 50`)
	e.apply(config(500, catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 4})) // group 50 drains
	require.Equal(t, [2]int{0, 1}, e.slotsOf("thumb")[50])

	p := e.plan(config(20, catalog.TaskType{Name: "thumb", Queue: "default", Concurrency: 4}))
	require.Equal(t, 1, p.Summary.Change, "only render changes")
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 0 WHERE task_type = 'thumb' AND slot_group = 50`) // drained
	e.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status) VALUES ('default', 'render', 'running')`)

	res, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test"})
	require.NoError(t, err)
	require.Equal(t, plan.Summary{Change: 1}, res.Summary, "only what the plan said")
	require.Equal(t, 20, capacitySum(e.slotsOf("render")))
	require.Contains(t, e.slotsOf("thumb"), 50, "trimming thumb's drained group waits for the next apply")
}

// ApplyApproved applies what was approved, or nothing when the plan made
// under the lock differs.
func TestApplyApproved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		meantime func(e *env)
		want     string // "" : applied
	}{
		{"nothing happened", func(*env) {}, ""},
		{"tasks started running", func(e *env) {
			e.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status) VALUES ('default', 'render', 'running')`)
		}, ""},
		{"another apply changed the limit", func(e *env) { e.apply(config(30)) },
			`task "render": changed in the database since the plan was made: concurrency 10 -> 30`},
		{"another apply added a task type", func(e *env) {
			e.apply(config(10, catalog.TaskType{Name: "thumb", Queue: "default"}))
		}, `task "thumb": would now also be destroyed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.apply(config(10))
			approved, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, config(20))
			require.NoError(t, err)
			tt.meantime(e)
			before := e.state()
			applies := e.applies()

			res, err := reconcile.ApplyApproved(e.ctx(), e.Pool, config(20), approved, applier.Options{Client: "test"})
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, approved.Summary, res.Summary)
				require.Equal(t, 20, capacitySum(e.slotsOf("render")))
				require.True(t, e.plan(config(20)).Empty())
				return
			}
			require.ErrorIs(t, err, reconcile.ErrPlanChanged)
			require.Contains(t, err.Error(), tt.want)
			require.True(t, strings.Contains(err.Error(), "Run pgseq apply again"), err.Error())
			require.Equal(t, before, e.state(), "nothing applied")
			require.Equal(t, applies, e.applies())
		})
	}
}
