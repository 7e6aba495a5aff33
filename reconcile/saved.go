package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
)

// Apply executes a saved plan p (pgseq apply PLANFILE) in one transaction,
// under the apply lock. There it reads the state in one snapshot, refuses p
// as stale (ErrStale) if the state's fingerprint is not p's, and plans p's
// own target — the state with p's creates and updates written over it and
// its deletes removed — against the state. That plan must do what p says
// (plan.Differences), or p is refused (ErrPlanMismatch): this catches a plan
// whose before values, actions or slot groups were edited. It is then
// executed, restricted to the objects p changes; destructiveness is decided
// on it, from the live values found under the lock. The history row records
// p's hash (its checksum). p comes from the planner or from plan.Read,
// which validated it. Nothing is applied on any error.
func Apply(ctx context.Context, db applier.DB, p *plan.Plan, opts applier.Options) (*applier.Result, error) {
	return applier.Execute(ctx, db, p.Schema, p.Hash(), opts, func(q inspect.Querier) (*plan.Plan, error) {
		return replanSaved(ctx, q, p)
	})
}

// ErrStale means the database changed since the saved plan was made.
var ErrStale = errors.New("saved plan is stale")

// ErrPlanMismatch means a saved plan, made from the state the database is
// in, is not the plan pgseq makes from that state for the plan's own
// target: its before values, actions or slot groups do not match the
// database (the file was edited, or live drift came and went).
var ErrPlanMismatch = errors.New("saved plan does not match the database")

// ErrOtherDatabase means a saved plan was made against another database
// than the one apply is connected to.
var ErrOtherDatabase = errors.New("saved plan was made against another database")

// OtherDatabaseError refuses a saved plan made against another database
// (Planned) than the one apply is connected to (Here). It matches
// ErrOtherDatabase, not ErrStale: the database did not change, it is not
// the plan's.
type OtherDatabaseError struct {
	Schema        string
	Planned, Here *plan.Database
}

func (e *OtherDatabaseError) Error() string {
	return fmt.Sprintf("%s: the plan was made against %s (schema %q), but this is %s; apply it to the database it was made for, or run pgseq plan against this one",
		ErrOtherDatabase, e.Planned, e.Schema, e.Here)
}

// Is makes the error match ErrOtherDatabase.
func (e *OtherDatabaseError) Is(target error) bool { return target == ErrOtherDatabase }

// replanSaved checks a saved plan against the state read through q and
// returns the plan to execute (see Apply).
func replanSaved(ctx context.Context, q inspect.Querier, saved *plan.Plan) (*plan.Plan, error) {
	database, err := inspect.ReadDatabase(ctx, q)
	if err != nil {
		return nil, err
	}
	if saved.Database != nil && !saved.Database.Same(database) {
		return nil, &OtherDatabaseError{Schema: saved.Schema, Planned: saved.Database, Here: database}
	}
	actual, version, err := inspect.Read(ctx, q, saved.Schema)
	if err != nil {
		return nil, fmt.Errorf("reading the current state: %w", err)
	}
	if err := checkUpgrade(saved, version); err != nil {
		return nil, err
	}
	if got := plan.Fingerprint(actual); got != saved.Fingerprint {
		unknown := ""
		if saved.Database == nil {
			unknown = fmt.Sprintf("; the plan file does not record which database it was made against (an older pgseq wrote it), so it may also come from a database other than %s", database)
		}
		return nil, fmt.Errorf("%w: the database changed since the plan was made (another apply, or a manual change)%s; run pgseq plan again", ErrStale, unknown)
	}
	desired, written := target(actual, saved)
	if err := checkQueues(desired); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPlanMismatch, err)
	}
	if err := checkNames(ctx, q, saved.Schema, written, grantsOf(saved)); err != nil {
		return nil, err
	}
	if err := inspect.ReadLiveFor(ctx, q, saved.Schema, version, desired, &actual); err != nil {
		return nil, fmt.Errorf("reading the current state: %w", err)
	}
	opts, warning, err := plannerOptions(ctx, q, saved.Schema, version)
	if err != nil {
		return nil, err
	}
	now := restrict(withWarning(planner.Plan(desired, actual, opts), warning), saved)
	now.Database = database
	now.SchemaUpgrade = saved.SchemaUpgrade
	if d := plan.Differences(saved, now); len(d) > 0 {
		return nil, fmt.Errorf("%w: the plan is not what pgseq plans from this database for the same target:\n  %s\nThe file was edited, or the database drifted since; run pgseq plan again",
			ErrPlanMismatch, strings.Join(d, "\n  "))
	}
	return now, nil
}

// target returns the state a plan declares over actual: actual's queues,
// task types, counters and access levels, with the plan's creates and
// updates written over them and its deletes removed (no slots, no live
// values, as a configuration gives). written lists the counters the plan
// creates or updates.
func target(actual catalog.State, p *plan.Plan) (desired catalog.State, written []catalog.Counter) {
	type key struct{ kind, name string }
	changes := make(map[key]plan.Change, len(p.Changes))
	for _, c := range p.Changes {
		changes[key{c.Kind, c.Name}] = c
	}
	desired = catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}}
	for _, o := range actual.Objects() {
		k := key{o.Kind(), o.Key()}
		c, changed := changes[k]
		switch {
		case !changed:
			desired.Add(o)
		case c.After != nil:
			desired.Add(c.After)
		}
		delete(changes, k)
	}
	// Objects the plan creates (or updates, or deletes, though the state
	// does not hold them: the plan made from the target then differs).
	for _, c := range p.Changes {
		if _, left := changes[key{c.Kind, c.Name}]; left && c.After != nil {
			desired.Add(c.After)
		}
		if k, ok := c.After.(*catalog.Counter); ok {
			written = append(written, *k)
		}
	}
	return desired, written
}

// checkQueues checks that every task type of desired is on one of its
// queues, as a configuration must be.
func checkQueues(desired catalog.State) error {
	for _, t := range desired.TaskTypes {
		if _, ok := desired.Queue(t.Queue); !ok {
			return fmt.Errorf("task %q would be on queue %q, which would not exist", t.Name, t.Queue)
		}
	}
	return nil
}

// restrict returns p with only the changes of objects that of changes; the
// others come from live values alone (drift, drained slot groups emptied
// since): they wait for the next apply.
func restrict(p *plan.Plan, of *plan.Plan) *plan.Plan {
	type key struct{ kind, name string }
	keep := make(map[key]bool, len(of.Changes))
	for _, c := range of.Changes {
		keep[key{c.Kind, c.Name}] = true
	}
	out := *p
	out.Changes = []plan.Change{}
	for _, c := range p.Changes {
		if keep[key{c.Kind, c.Name}] {
			out.Changes = append(out.Changes, c)
		}
	}
	out.Count()
	return &out
}

// checkUpgrade refuses a saved plan whose schema upgrade is not the one
// this pgseq would make: the plan was made by another pgseq version, and
// applying it would upgrade the schema to a version it did not show (or
// not to the one it did).
func checkUpgrade(saved *plan.Plan, version int) error {
	want := schemaUpgrade(version)
	switch got := saved.SchemaUpgrade; {
	case got == nil && want == nil:
		return nil
	case got == nil:
		return fmt.Errorf("%w: applying it with this pgseq would also upgrade schema %q from version %d to %d, which the plan does not show (another pgseq version made it); run pgseq plan again with this pgseq",
			ErrPlanMismatch, saved.Schema, want.From, want.To)
	case want == nil || got.From != want.From || got.To != want.To:
		now := fmt.Sprintf("the schema is at version %d and this pgseq's is %d", version, migrations.Latest())
		return fmt.Errorf("%w: the plan upgrades schema %q from version %d to %d, but %s; apply it with the pgseq that made it, or run pgseq plan again",
			ErrPlanMismatch, saved.Schema, got.From, got.To, now)
	}
	return nil
}

// grantsOf returns the grants p's changes create or keep (its afters).
func grantsOf(p *plan.Plan) []catalog.Grant {
	var out []catalog.Grant
	for _, c := range p.Changes {
		if g, ok := c.After.(*catalog.Grant); ok {
			out = append(out, *g)
		}
	}
	return out
}
