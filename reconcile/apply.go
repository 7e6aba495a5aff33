package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/plan"
)

// ErrPlanChanged means the plan made under the apply lock differs from the
// plan that was approved: the database changed during the review.
var ErrPlanChanged = errors.New("the plan changed since it was approved")

// ApplyConfig plans desired against the state of schema found under the
// apply lock and applies that plan, in one transaction: two applies of
// configurations run one after the other, each planned against what the
// other left, as Terraform does. opts.Review sees the plan before anything
// is written. Counters whose tables or columns are missing come back as a
// *CounterProblemsError, roles the access block cannot name as an
// *AccessProblemsError. Nothing is applied on any error.
func ApplyConfig(ctx context.Context, db applier.DB, schema string, desired catalog.State, opts applier.Options) (*applier.Result, error) {
	return applier.Execute(ctx, db, schema, "", opts, func(q inspect.Querier) (*plan.Plan, error) {
		return planConfig(ctx, q, schema, desired)
	})
}

// ApplyApproved applies desired after a person approved approved, the plan
// Plan made for it (pgseq apply on a terminal). Under the apply lock it
// plans desired again against the state found there; if that plan differs
// from the approved one (plan.Differences) nothing is applied and the error
// (ErrPlanChanged) lists what changed; otherwise it is applied. The history
// row records the approved plan's hash.
func ApplyApproved(ctx context.Context, db applier.DB, desired catalog.State, approved *plan.Plan, opts applier.Options) (*applier.Result, error) {
	return applier.Execute(ctx, db, approved.Schema, approved.Hash(), opts, func(q inspect.Querier) (*plan.Plan, error) {
		now, err := planConfig(ctx, q, approved.Schema, desired)
		if err != nil {
			return nil, err
		}
		if d := plan.Differences(approved, now); len(d) > 0 {
			return nil, fmt.Errorf("%w: the database changed while the plan was reviewed:\n  %s\nRun pgseq apply again to review the new plan",
				ErrPlanChanged, strings.Join(d, "\n  "))
		}
		return now, nil
	})
}

// Approve is asked, between planning and applying, whether a plan is to be
// applied (pgseq apply asks for "yes" on the terminal). It is asked only
// about a plan with changes the apply is allowed to make.
type Approve func(p *plan.Plan) (bool, error)

// ErrNotApproved means Approve said no: nothing was applied.
var ErrNotApproved = errors.New("the plan was not approved")

// ApplyError is an error of the apply transaction of PlanAndApply (and of
// the plan made in it, under the apply lock): the transaction rolled back,
// nothing was applied. Errors of the steps before it — planning without
// the lock, applier.Options.Review of that plan, the destructive check,
// Approve — are returned as they are.
type ApplyError struct {
	Err error
}

func (e *ApplyError) Error() string { return e.Err.Error() }

// Unwrap returns the error of the apply.
func (e *ApplyError) Unwrap() error { return e.Err }

// PlanAndApply is the one sequence that takes a configuration to the
// database: read the state of schema, plan desired against it, have the
// plan approved, apply it. pgseq apply, the benchmark scenarios and the
// tests all go through it; pgseq plan is its first step alone (Plan).
//
// With approve nil (pgseq apply --auto-approve, tests, benchmarks) it is
// ApplyConfig: the plan is made under the apply lock from the state found
// there, opts.Review sees it, and it is applied in the same transaction.
//
// With approve set (pgseq apply on a terminal) the plan is made first
// without the lock (PlanWithin opts.LockTimeout) and opts.Review sees it. A
// plan without changes or drift ends there: the Result has that plan and no
// history row. A plan with only drift is applied without asking: it only
// records the state as it is. A plan with a destructive change is refused
// before asking unless opts.AllowDestroy is set (the error matches
// applier.ErrDestroyNotAllowed). Otherwise approve is asked; a no returns
// ErrNotApproved. The approved plan is applied with ApplyApproved, which
// plans again under the lock and refuses the plan if it changed meanwhile
// (ErrPlanChanged); opts.Review is not called again.
//
// Errors of the apply transaction come as an *ApplyError; counters or roles
// the configuration cannot name come as a *CounterProblemsError or an
// *AccessProblemsError, from either step. Nothing is applied on any error.
func PlanAndApply(ctx context.Context, db applier.DB, schema string, desired catalog.State, opts applier.Options, approve Approve) (*applier.Result, error) {
	if approve == nil {
		return applyStep(ApplyConfig(ctx, db, schema, desired, opts))
	}
	p, err := PlanWithin(ctx, db, schema, desired, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	if opts.Review != nil {
		if err := opts.Review(p); err != nil {
			return nil, err
		}
		opts.Review = nil
	}
	if p.Empty() && len(p.Drift) == 0 {
		return &applier.Result{Plan: p, Summary: p.Summary}, nil
	}
	if !p.Empty() {
		if err := checkDestroy(p, opts.AllowDestroy); err != nil {
			return nil, err
		}
		ok, err := approve(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrNotApproved
		}
	}
	return applyStep(ApplyApproved(ctx, db, desired, p, opts))
}

// applyStep wraps an error of an apply transaction in an *ApplyError.
func applyStep(res *applier.Result, err error) (*applier.Result, error) {
	if err != nil {
		return nil, &ApplyError{Err: err}
	}
	return res, nil
}

// checkDestroy refuses the first destructive change of p unless destroy is
// allowed, before anyone is asked to approve a plan the apply would refuse.
func checkDestroy(p *plan.Plan, allow bool) error {
	if allow {
		return nil
	}
	for _, c := range p.Changes {
		if c.Destructive {
			return &destroyError{change: c}
		}
	}
	return nil
}

// destroyError is a destructive change refused before approval. It matches
// applier.ErrDestroyNotAllowed; its message is pgseq apply's.
type destroyError struct {
	change plan.Change
}

func (e *destroyError) Error() string {
	return fmt.Sprintf("%s: %s; nothing was applied. Re-run with --allow-destroy to do it anyway",
		e.change.Address, strings.Join(e.change.Reasons, "; "))
}

func (e *destroyError) Is(target error) bool { return target == applier.ErrDestroyNotAllowed }
