package applier_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// approver records what PlanAndApply asked it and answers answer (or err).
type approver struct {
	asked  []*plan.Plan
	answer bool
	err    error
}

func (a *approver) approve(p *plan.Plan) (bool, error) {
	a.asked = append(a.asked, p)
	return a.answer, a.err
}

func (e *env) planAndApply(desired catalog.State, opts applier.Options, approve reconcile.Approve) (*applier.Result, error) {
	e.T.Helper()
	opts.Client, opts.Version = "test", "test"
	return reconcile.PlanAndApply(e.ctx(), e.Pool, e.Schema, desired, opts, approve)
}

// Without an approver the plan is made under the lock, reviewed and
// applied; the next run has nothing to do.
func TestPlanAndApplyAutoApproved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var reviewed []*plan.Plan
	opts := applier.Options{Review: func(p *plan.Plan) error { reviewed = append(reviewed, p); return nil }}

	res, err := e.planAndApply(config(10), opts, nil)
	require.NoError(t, err)
	require.Equal(t, plan.Summary{Add: 2}, res.Summary)
	require.NotZero(t, res.HistoryID)
	require.Len(t, reviewed, 1)
	require.Same(t, res.Plan, reviewed[0], "the plan reviewed is the plan applied")
	require.True(t, e.livePlan(config(10)).Empty(), "plan after apply must be empty")

	res, err = e.planAndApply(config(10), opts, nil)
	require.NoError(t, err)
	require.True(t, res.Plan.Empty())
	require.Zero(t, res.HistoryID, "no change, no drift: nothing written")
	require.Equal(t, 1, e.applies())
}

// With an approver the plan is reviewed, then approved, then applied; a
// no, or an error of the approver, applies nothing.
func TestPlanAndApplyAsksForApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var reviewed []*plan.Plan
	opts := applier.Options{Review: func(p *plan.Plan) error {
		reviewed = append(reviewed, p)
		return nil
	}}

	no := &approver{answer: false}
	_, err := e.planAndApply(config(10), opts, no.approve)
	require.ErrorIs(t, err, reconcile.ErrNotApproved)
	var applyErr *reconcile.ApplyError
	require.False(t, errors.As(err, &applyErr), "refused before the apply")
	require.Len(t, no.asked, 1)
	require.Equal(t, reviewed, no.asked, "the plan asked about was reviewed first")
	require.Equal(t, plan.Summary{Add: 2}, no.asked[0].Summary)
	require.Equal(t, plan.Summary{Add: 2}, e.livePlan(config(10)).Summary, "nothing applied")

	broken := &approver{err: errors.New("no terminal")}
	_, err = e.planAndApply(config(10), opts, broken.approve)
	require.EqualError(t, err, "no terminal")
	require.False(t, e.livePlan(config(10)).Empty(), "nothing applied")

	reviewed = nil
	yes := &approver{answer: true}
	res, err := e.planAndApply(config(10), opts, yes.approve)
	require.NoError(t, err)
	require.Len(t, reviewed, 1, "reviewed once, not again under the lock")
	require.Equal(t, plan.Summary{Add: 2}, res.Summary)
	require.Equal(t, yes.asked[0].Hash(), res.Plan.Hash(), "the approved plan is applied")
	require.True(t, e.livePlan(config(10)).Empty(), "plan after apply must be empty")
	require.Equal(t, 1, e.applies())
}

// A plan without changes is shown and not asked about; one with only drift
// is recorded without asking.
func TestPlanAndApplyAsksOnlyAboutChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := config(4)
	e.applyConfig(cfg)
	var reviewed int
	opts := applier.Options{Review: func(*plan.Plan) error { reviewed++; return nil }}

	a := &approver{answer: false}
	res, err := e.planAndApply(cfg, opts, a.approve)
	require.NoError(t, err)
	require.True(t, res.Plan.Empty())
	require.Zero(t, res.HistoryID)
	require.Equal(t, 1, reviewed, "an empty plan is shown")
	require.Empty(t, a.asked)
	require.Equal(t, 1, e.applies())

	e.Exec(`UPDATE {{schema}}.queues SET batch_size = 250 WHERE name = 'default'`)
	cfg.Queues[0].BatchSize = 250
	res, err = e.planAndApply(cfg, opts, a.approve)
	require.NoError(t, err)
	require.True(t, res.Plan.Empty())
	require.Len(t, res.Plan.Drift, 1)
	require.NotZero(t, res.HistoryID, "the drift is recorded")
	require.Empty(t, a.asked, "recording drift needs no approval")
	require.Equal(t, 2, e.applies())
	require.Empty(t, e.livePlan(cfg).Drift)
}

// A destructive plan is refused before anyone is asked to approve it,
// unless destroying is allowed.
func TestPlanAndApplyRefusesDestructionBeforeAsking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.applyConfig(withCounters(invoices()))
	a := &approver{answer: true}

	_, err := e.planAndApply(withCounters(), applier.Options{}, a.approve)
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed)
	require.ErrorContains(t, err, `counter "invoice_number": `)
	require.ErrorContains(t, err, `; nothing was applied. Re-run with --allow-destroy to do it anyway`)
	require.Empty(t, a.asked)
	require.Len(t, e.state().Counters, 1, "nothing applied")

	_, err = e.planAndApply(withCounters(), applier.Options{}, nil)
	require.ErrorIs(t, err, applier.ErrDestroyNotAllowed, "refused under the lock too")
	var applyErr *reconcile.ApplyError
	require.ErrorAs(t, err, &applyErr)
	require.Len(t, e.state().Counters, 1, "nothing applied")

	res, err := e.planAndApply(withCounters(), applier.Options{AllowDestroy: true}, a.approve)
	require.NoError(t, err)
	require.Len(t, a.asked, 1)
	require.Equal(t, plan.Summary{Destroy: 1}, res.Summary)
	require.Empty(t, e.state().Counters)
}

// Errors of planning without the lock come as they are; errors of the
// apply transaction as an *ApplyError.
func TestPlanAndApplyErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	missing := withCounters(catalog.Counter{
		Name: "task_index", Table: "public.pgseq_no_such_table", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
	})
	a := &approver{answer: true}

	_, err := e.planAndApply(missing, applier.Options{}, a.approve)
	var problems *reconcile.CounterProblemsError
	require.ErrorAs(t, err, &problems)
	var applyErr *reconcile.ApplyError
	require.False(t, errors.As(err, &applyErr), "planning failed, not the apply")
	require.Empty(t, a.asked)

	_, err = e.planAndApply(missing, applier.Options{}, nil)
	require.ErrorAs(t, err, &applyErr)
	require.ErrorAs(t, err, &problems, "the apply's error is unwrapped")

	showErr := errors.New("cannot show")
	_, err = e.planAndApply(config(3), applier.Options{Review: func(*plan.Plan) error { return showErr }}, a.approve)
	require.ErrorIs(t, err, showErr)
	require.Empty(t, a.asked)
	require.False(t, e.livePlan(config(3)).Empty(), "nothing applied")
}
