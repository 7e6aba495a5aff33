package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
)

// Plan is PlanWithin with applier.DefaultLockTimeout.
func Plan(ctx context.Context, db inspect.TxBeginner, schema string, desired catalog.State) (*plan.Plan, error) {
	return PlanWithin(ctx, db, schema, desired, applier.DefaultLockTimeout)
}

// PlanWithin reads the state of schema in one snapshot (applier.Snapshot)
// and plans desired against it: what pgseq plan shows, and what pgseq
// apply shows before asking for approval. It writes nothing and takes no
// apply lock, but reading a counter's table waits for the locks other
// sessions hold on it: lockTimeout bounds each wait
// (applier.DefaultLockTimeout when not positive), and a wait that times
// out is an *applier.LockWaitError naming the sessions that held the lock
// (when db can run a query besides the snapshot: a pool). Counters whose
// tables or columns are missing come back as a *CounterProblemsError, roles
// of the access block that do not exist (or are superusers, or own the
// schema) as an *AccessProblemsError — both at once when there are both
// (errors.As finds each) — and nothing is planned. A schema the current
// user cannot trust is refused as apply refuses it (inspect.CheckTrust).
// The plan records the database it was made against (Plan.Database).
func PlanWithin(ctx context.Context, db inspect.TxBeginner, schema string, desired catalog.State, lockTimeout time.Duration) (*plan.Plan, error) {
	var p *plan.Plan
	err := applier.Snapshot(ctx, db, lockTimeout, func(q inspect.Querier) error {
		// Reading runs code of the schema's owner too (a view, a function
		// in place of a table): refused when apply would refuse it.
		if err := inspect.CheckTrust(ctx, q, schema); err != nil {
			return err
		}
		var err error
		p, err = planConfig(ctx, q, schema, desired)
		return err
	})
	return p, err
}

// planConfig is the one sequence that plans a configuration: check the
// counters' tables and the access block's roles, read the state, plan, and
// record which database the plan was made against. q should be a snapshot.
func planConfig(ctx context.Context, q inspect.Querier, schema string, desired catalog.State) (*plan.Plan, error) {
	if err := checkNames(ctx, q, schema, desired.Counters, desired.Access); err != nil {
		return nil, err
	}
	database, err := inspect.ReadDatabase(ctx, q)
	if err != nil {
		return nil, err
	}
	actual, version, err := inspect.ReadFor(ctx, q, schema, desired)
	if err != nil {
		return nil, fmt.Errorf("reading the database state: %w", err)
	}
	opts, warning, err := plannerOptions(ctx, q, schema, version)
	if err != nil {
		return nil, err
	}
	p := withWarning(planner.Plan(desired, actual, opts), warning)
	p.Database = database
	p.SchemaUpgrade = schemaUpgrade(version)
	if err := checkCounterOwners(ctx, q, p); err != nil {
		return nil, err
	}
	return p, nil
}

// schemaUpgrade is the upgrade apply makes to a schema at version: nil
// when there is none to make (the schema is new, version 0, or at this
// pgseq's version; a newer one was refused when it was read).
func schemaUpgrade(version int) *plan.SchemaUpgrade {
	all := migrations.All()
	if version == 0 || version >= len(all) {
		return nil
	}
	u := &plan.SchemaUpgrade{From: version, To: len(all)}
	for _, m := range all[version:] {
		u.Migrations = append(u.Migrations, m.ID())
	}
	return u
}

// plannerOptions returns the planner's options for schema at version: with
// the state the last apply recorded, so that the plan shows the drift since.
// A recorded state that cannot be read costs the drift section, not the
// plan: it comes back as a warning.
func plannerOptions(ctx context.Context, q inspect.Querier, schema string, version int) (planner.Options, string, error) {
	opts := planner.Options{Schema: schema}
	applied, err := inspect.ReadApplied(ctx, q, schema, version)
	var bad *inspect.AppliedError
	switch {
	case errors.As(err, &bad):
		return opts, bad.Error() + "; changes made outside pgseq are not shown until the next apply records it again", nil
	case err != nil:
		return opts, "", err
	case applied != nil:
		opts.Applied = &applied.State
	}
	return opts, "", nil
}

func withWarning(p *plan.Plan, warning string) *plan.Plan {
	if warning != "" {
		p.Warnings = append(p.Warnings, warning)
	}
	return p
}
