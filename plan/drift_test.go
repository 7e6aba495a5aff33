package plan_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
)

// driftPlan is basePlan's change made from a database that drifted since
// the last apply: the default queue's batch size edited by hand, slot group
// 2 of render resized and group 3 deleted, a queue created by hand.
func driftPlan(t *testing.T) *plan.Plan {
	t.Helper()
	def := catalog.DefaultQueue("default")
	render := catalog.TaskType{Name: "render", Queue: "default", Concurrency: 10}
	applied := catalog.State{Queues: []catalog.Queue{def}, TaskTypes: []catalog.TaskType{render}}
	var groups []catalog.SlotGroup
	for i, c := range catalog.SlotLayout(10) {
		groups = append(groups, catalog.SlotGroup{TaskType: "render", Group: i + 1, Capacity: c})
	}
	applied.Slots = catalog.Runs(groups)
	actual := applied
	actual.Queues = []catalog.Queue{def, catalog.DefaultQueue("manual")}
	actual.Queues[0].BatchSize = 7
	groups[1].Capacity = 4
	actual.Slots = catalog.Runs(append(groups[:2], groups[3:]...))
	p := planner.Plan(applied, actual, planner.Options{Schema: "pgseq", Applied: &applied})
	require.Len(t, p.Drift, 3)
	return p
}

func drift(t *testing.T, p *plan.Plan, addr string) *plan.Drift {
	t.Helper()
	for i := range p.Drift {
		if p.Drift[i].Address == addr {
			return &p.Drift[i]
		}
	}
	t.Fatalf("no drift %s", addr)
	return nil
}

func TestReadAcceptsDrift(t *testing.T) {
	t.Parallel()
	p := driftPlan(t)
	doc := encode(t, p)
	require.Contains(t, string(doc), `"drift": [`)
	back, err := plan.Read(bytes.NewReader(doc))
	require.NoError(t, err)
	require.Equal(t, p.Drift, back.Drift)
	require.Equal(t, p.Hash(), back.Hash())

	// A plan without drift has no drift field: plans written before drift
	// existed read as they did, with the same checksum.
	require.NotContains(t, string(encode(t, basePlan(t))), `"drift"`)

	// Drift is display: plans that differ only in drift do the same.
	none := *p
	none.Drift = nil
	require.Empty(t, plan.Differences(p, &none))
}

func TestReadRefusesBadDrift(t *testing.T) {
	t.Parallel()
	queue, task := `queue "default"`, `task "render"`
	tests := []struct {
		name string
		edit func(p *plan.Plan)
		want string
	}{
		{"drift out of order", func(p *plan.Plan) { p.Drift[0], p.Drift[1] = p.Drift[1], p.Drift[0] },
			`drift[1] (queue "default"): out of order or repeated after queue "manual"`},
		{"an unknown attribute", func(p *plan.Plan) { drift(t, p, queue).Attributes[0].Name = "turbo" },
			`drift[0] (queue "default"): attributes[0] (turbo): not an attribute of a queue`},
		{"an attribute that did not change", func(p *plan.Plan) {
			a := &drift(t, p, queue).Attributes[0]
			a.After = a.Before
		}, "attributes[0] (batch_size): before and after are the same"},
		{"an appeared object with a before", func(p *plan.Plan) {
			a := &drift(t, p, `queue "manual"`).Attributes[0]
			a.Before = json.RawMessage("1")
		}, "an object that appeared has an after and no before"},
		{"slot groups on a queue", func(p *plan.Plan) {
			d := drift(t, p, queue)
			d.Slots = drift(t, p, task).Slots
		}, `drift[0] (queue "default"): slots: only a task type that changed has slot groups in its drift`},
		{"slot groups out of order", func(p *plan.Plan) {
			s := drift(t, p, task).Slots
			s[0], s[1] = s[1], s[0]
		}, "slots[1] (slot group 2): groups must be distinct, in ascending order"},
		{"an address of another object", func(p *plan.Plan) { drift(t, p, task).Address = `task "other"` },
			`address "task \"other\"" does not match type and name (task "render")`},
		{"a change that names nothing", func(p *plan.Plan) { drift(t, p, task).Slots = nil },
			"a changed object names no attribute and no slot group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := driftPlan(t)
			tt.edit(p)
			require.ErrorContains(t, p.Validate(), tt.want)
			_, err := plan.Read(bytes.NewReader(encode(t, p)))
			require.ErrorIs(t, err, plan.ErrInvalid)
			require.Contains(t, err.Error(), tt.want)
		})
	}

	doc := string(encode(t, driftPlan(t)))
	for name, edit := range map[string][2]string{
		"an unknown field in a drift entry": {`"action": "update",`, `"action": "update", "force": true,`},
		"an unknown field in an attribute":  {`"attribute": "batch_size",`, `"attribute": "batch_size", "x": 1,`},
		"an unknown field in a slot group":  {`"slot_group": 2,`, `"slot_group": 2, "used": 1,`},
	} {
		require.Contains(t, doc, edit[0], name)
		_, err := plan.Read(strings.NewReader(strings.Replace(doc, edit[0], edit[1], 1)))
		require.ErrorIs(t, err, plan.ErrFormat, name)
	}
}

func TestAttributeValue(t *testing.T) {
	t.Parallel()
	for literal, want := range map[string]string{
		`null`:              `null`,
		`100`:               `100`,
		`0.2`:               `0.2`,
		`"30s"`:             `"30s"`,
		`"a\"b"`:            `"a\"b"`,
		`[]`:                `[]`,
		`["a", "b, \"c\""]`: `["a","b, \"c\""]`,
		`NaN`:               `"NaN"`,
	} {
		require.Equal(t, want, string(plan.AttributeValue(literal)), literal)
	}
}
