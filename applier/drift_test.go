package applier_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/render"
)

// livePlan is what pgseq plan shows: the plan made in one snapshot, with
// the drift since the last apply.
func (e *env) livePlan(desired catalog.State) *plan.Plan {
	e.T.Helper()
	p, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, desired)
	require.NoError(e.T, err)
	return p
}

func (e *env) applyConfig(desired catalog.State) *applier.Result {
	e.T.Helper()
	res, err := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, desired, applier.Options{Client: "test", Version: "test"})
	require.NoError(e.T, err)
	return res
}

func humanPlan(t *testing.T, p *plan.Plan) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, render.Plan(&b, p))
	return b.String()
}

func driftConfig(app string) catalog.State {
	return catalog.State{
		Queues:    []catalog.Queue{catalog.DefaultQueue("default")},
		TaskTypes: []catalog.TaskType{{Name: "render", Queue: "default", Concurrency: 4}, {Name: "thumb", Queue: "default"}},
		Counters:  []catalog.Counter{taskIndex(app)},
	}
}

// Changes made by hand — a slot group's capacity raised, another group
// deleted, a queue setting and a task type's priority changed, a counter's
// trigger dropped — are the plan's drift, before -> after, apart from the
// changes; apply repairs them, and the plan after shows neither.
func TestDriftIsShownAndRepaired(t *testing.T) {
	t.Parallel()
	e, app := counterEnv(t)
	cfg := driftConfig(app)
	res := e.applyConfig(cfg)
	require.NotZero(t, res.HistoryID)
	p := e.livePlan(cfg)
	require.True(t, p.Empty())
	require.Empty(t, p.Drift, "an apply leaves no drift")

	// Running tasks move slot usage: never drift.
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET used = 1 WHERE task_type = 'render' AND slot_group IN (1, 4)`)
	require.Empty(t, e.livePlan(cfg).Drift, "usage is not drift")

	e.Exec(`UPDATE {{schema}}.concurrency_slots SET capacity = 9 WHERE task_type = 'render' AND slot_group = 2`)
	e.Exec(`DELETE FROM {{schema}}.concurrency_slots WHERE task_type = 'render' AND slot_group = 3`)
	e.Exec(`UPDATE {{schema}}.queues SET batch_size = 250, max_retries = 9 WHERE name = 'default'`)
	e.Exec(`UPDATE {{schema}}.task_types SET priority = 7 WHERE name = 'thumb'`)
	e.Exec(`DROP TRIGGER "` + catalog.ObjectsFor(e.Schema, "task_index").Trigger + `" ON "` + app + `".tasks`)

	p = e.livePlan(cfg)
	nine, one := 9, 1
	require.Equal(t, []plan.Drift{
		{Address: `queue "default"`, Kind: plan.KindQueue, Name: "default", Action: plan.Update, Attributes: []plan.AttributeDrift{
			{Name: "batch_size", Before: json.RawMessage("100"), After: json.RawMessage("250")},
			{Name: "max_retries", Before: json.RawMessage("3"), After: json.RawMessage("9")},
		}},
		{Address: `task "render"`, Kind: plan.KindTask, Name: "render", Action: plan.Update, Slots: []plan.SlotDrift{
			{Group: 2, Before: &one, After: &nine},
			{Group: 3, Before: &one},
		}},
		{Address: `task "thumb"`, Kind: plan.KindTask, Name: "thumb", Action: plan.Update, Attributes: []plan.AttributeDrift{
			{Name: "priority", Before: json.RawMessage("0"), After: json.RawMessage("7")},
		}},
		{Address: `counter "task_index"`, Kind: plan.KindCounter, Name: "task_index", Action: plan.Update, Attributes: []plan.AttributeDrift{
			{Name: "trigger", Before: json.RawMessage(`"ok"`), After: json.RawMessage(`"missing or disabled"`)},
		}},
	}, p.Drift)
	require.Equal(t, plan.Summary{Change: 4}, p.Summary, "the changes undo the drift")
	golden.Check(t, filepath.Join("testdata", "drift_by_hand.txt"), humanPlan(t, p))

	// The saved plan carries its drift and applies as it is.
	var doc bytes.Buffer
	require.NoError(t, p.Write(&doc))
	saved, err := plan.Read(&doc)
	require.NoError(t, err)
	require.Equal(t, p.Drift, saved.Drift)
	res, err = reconcile.Apply(e.ctx(), e.Pool, saved, applier.Options{Client: "test", Version: "test"})
	require.NoError(t, err)
	require.Equal(t, plan.Summary{Change: 4}, res.Summary)

	after := e.livePlan(cfg)
	require.True(t, after.Empty(), "apply converges:\n%s", humanPlan(t, after))
	require.Empty(t, after.Drift, "the apply recorded the repaired state")
	require.Equal(t, "No changes. The database matches the configuration.\n", humanPlan(t, after))
	require.Equal(t, map[int][2]int{1: {1, 1}, 2: {1, 0}, 3: {1, 0}, 4: {1, 1}}, e.slotsOf("render"))
	require.EqualValues(t, 6, e.insertTask(app, 1), "the trigger numbers again")
}

// A task type and a queue created or deleted by hand are drift too.
func TestDriftOfObjectsCreatedOrDeletedByHand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := config(4, catalog.TaskType{Name: "thumb", Queue: "default"})
	e.applyConfig(cfg)
	e.Exec(`DELETE FROM {{schema}}.task_types WHERE name = 'thumb'`)
	e.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries, backoff_initial, backoff_max, backoff_factor,
	            backoff_jitter, worker_timeout, leader_lease, retention_completed, retention_dead_letter)
	        VALUES ('manual', 10, 0, '1s', '1m', 2, 0, '30s', '15s', '1d', '7d')`)
	p := e.livePlan(cfg)
	var got []string
	for _, d := range p.Drift {
		got = append(got, string(d.Action)+" "+d.Address)
	}
	require.Equal(t, []string{`create queue "manual"`, `delete task "thumb"`}, got)
	require.Equal(t, plan.Summary{Add: 1, Destroy: 1}, p.Summary)
	golden.Check(t, filepath.Join("testdata", "drift_created_deleted.txt"), humanPlan(t, p))

	e.applyConfig(cfg)
	after := e.livePlan(cfg)
	require.True(t, after.Empty())
	require.Empty(t, after.Drift)
}

// A change made by hand that the configuration then declares too: the plan
// has drift and no change. Applying it records the state, so the drift is
// reported once; without drift an empty apply writes nothing, as before.
func TestDriftTheConfigurationDeclares(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := config(4)
	e.applyConfig(cfg)
	require.Zero(t, e.applyConfig(cfg).HistoryID, "no change, no drift: nothing written")
	require.Equal(t, 1, e.applies())

	e.Exec(`UPDATE {{schema}}.queues SET batch_size = 250 WHERE name = 'default'`)
	cfg.Queues[0].BatchSize = 250
	p := e.livePlan(cfg)
	require.True(t, p.Empty())
	require.Len(t, p.Drift, 1)
	golden.Check(t, filepath.Join("testdata", "drift_declared.txt"), humanPlan(t, p))

	res := e.applyConfig(cfg)
	require.NotZero(t, res.HistoryID, "the drift is recorded")
	require.Equal(t, plan.Summary{}, res.Summary)
	require.Equal(t, 2, e.applies())
	require.Empty(t, e.livePlan(cfg).Drift)
	require.Zero(t, e.applyConfig(cfg).HistoryID)
}

// A saved plan made before a change by hand is refused as stale, drift or
// not: the state it was made from is gone.
func TestSavedPlanIsStaleAfterAChangeByHand(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]string{
		"slot capacity": `UPDATE {{schema}}.concurrency_slots SET capacity = 9 WHERE task_type = 'render' AND slot_group = 2`,
		"slot deleted":  `DELETE FROM {{schema}}.concurrency_slots WHERE task_type = 'render' AND slot_group = 3`,
		"queue setting": `UPDATE {{schema}}.queues SET batch_size = 250 WHERE name = 'default'`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.applyConfig(config(4))
			p := e.livePlan(config(6))
			require.Empty(t, p.Drift)
			e.Exec(change)
			_, err := reconcile.Apply(e.ctx(), e.Pool, p, applier.Options{Client: "test"})
			require.ErrorIs(t, err, reconcile.ErrStale)
			require.Len(t, e.livePlan(config(6)).Drift, 1, "the next plan shows the drift")
		})
	}
}

// A database whose last apply recorded no state — applied before schema
// version 7 — shows no drift and no error; the next apply records one.
func TestNoDriftWithoutARecordedState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := config(4)
	e.applyConfig(cfg)
	e.Exec(`UPDATE {{schema}}.applies SET state = NULL`)
	e.Exec(`UPDATE {{schema}}.concurrency_slots SET capacity = 9 WHERE task_type = 'render' AND slot_group = 2`)
	p := e.livePlan(cfg)
	require.Empty(t, p.Drift)
	require.Empty(t, p.Warnings)
	require.Equal(t, plan.Summary{Change: 1}, p.Summary, "the change repairs it all the same")
	e.applyConfig(cfg)
	require.Empty(t, e.livePlan(cfg).Drift)

	// A schema at version 6, which has no state column, with an apply
	// recorded as version 6 recorded it: the same, and the apply migrates
	// it and records the state. (Built by the migrations up to 6: later
	// ones do not all run twice over their own objects.)
	e.Exec(`DROP SCHEMA {{schema}} CASCADE`)
	tx, err := e.Pool.Begin(e.ctx())
	require.NoError(t, err)
	_, err = migrations.UpTo(e.ctx(), tx, e.Schema, 6)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(e.ctx()))
	e.Exec(`INSERT INTO {{schema}}.applies (client, pgseq_version, plan_hash, state_fingerprint, summary, changes)
	        VALUES ('test', 'v6', 'h', 'f', '{}', '{}')`)
	p = e.livePlan(cfg)
	require.Empty(t, p.Drift)
	require.Equal(t, plan.Summary{Add: 2}, p.Summary)
	res := e.applyConfig(cfg)
	require.Contains(t, res.Migrated, inspect.AppliedStateVersion)
	e.Exec(`UPDATE {{schema}}.queues SET batch_size = 300`)
	require.Len(t, e.livePlan(cfg).Drift, 1, "drift from the first apply that records the state")
}

// A recorded state that cannot be read (edited by hand) costs the drift
// section, with a warning, not the plan.
func TestUnreadableRecordedState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := config(4)
	e.applyConfig(cfg)
	e.Exec(`UPDATE {{schema}}.applies SET state = '{"format": 99}'`)
	p := e.livePlan(cfg)
	require.True(t, p.Empty())
	require.Empty(t, p.Drift)
	require.Len(t, p.Warnings, 1)
	require.Contains(t, p.Warnings[0], "the state recorded by the last apply (applies row 1) cannot be read: format 99 is not one this pgseq reads")
}
