package applier

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
)

// Plan is PlanWithin with DefaultLockTimeout.
func Plan(ctx context.Context, db inspect.TxBeginner, schema string, desired catalog.State) (*plan.Plan, error) {
	return PlanWithin(ctx, db, schema, desired, DefaultLockTimeout)
}

// PlanWithin reads the state of schema in one snapshot (inspect.InSnapshot)
// and plans desired against it: what pgseq plan shows, and what pgseq
// apply shows before asking for approval. It writes nothing and takes no
// apply lock, but reading a counter's table waits for the locks other
// sessions hold on it: lockTimeout bounds each wait (DefaultLockTimeout
// when not positive), and a wait that times out is a *LockWaitError naming
// the sessions that held the lock (when db can run a query besides the
// snapshot: a pool). Counters whose tables or columns are missing come
// back as a *CounterProblemsError, roles of the access block that do not
// exist (or are superusers, or own the schema) as an *AccessProblemsError
// — both at once when there are both (errors.As finds each) — and
// nothing is planned. A schema the current user cannot trust is refused
// as apply refuses it (inspect.CheckTrust). The plan records the database it was
// made against (Plan.Database).
func PlanWithin(ctx context.Context, db inspect.TxBeginner, schema string, desired catalog.State, lockTimeout time.Duration) (*plan.Plan, error) {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	watch := watchLocks(ctx, db, lockTimeout)
	defer watch.close()
	var p *plan.Plan
	err := inspect.InSnapshot(ctx, db, func(q inspect.Querier) error {
		watch.add(q)
		if err := setLockTimeout(ctx, q, lockTimeout); err != nil {
			return err
		}
		// Reading runs code of the schema's owner too (a view, a function
		// in place of a table): refused when apply would refuse it.
		if err := inspect.CheckTrust(ctx, q, schema); err != nil {
			return err
		}
		var err error
		p, err = planConfig(ctx, q, schema, desired)
		return err
	})
	return p, explainStatementTimeout(ctx, watch.explain(err), lockTimeout)
}

// setLockTimeout bounds every lock wait of q's transaction by timeout.
//
// A statement_timeout below timeout + StatementTimeoutMargin (a role's or a
// database's setting, as managed databases often set) is raised to that
// for the transaction too: pgseq's lock waits are bounded by its own lock
// timeout, not cut short by a shorter statement timeout with a bare
// "canceling statement due to statement timeout".
func setLockTimeout(ctx context.Context, q inspect.Querier, timeout time.Duration) error {
	lockMS := max(timeout.Milliseconds(), 1)
	statementMS := lockMS + StatementTimeoutMargin.Milliseconds()
	if _, err := q.Exec(ctx, `SELECT set_config('lock_timeout', $1::bigint::text || 'ms', true),
	       CASE WHEN s.ms > 0 AND s.ms < $2::bigint THEN set_config('statement_timeout', $2::bigint::text || 'ms', true) END
	FROM (SELECT extract(epoch FROM current_setting('statement_timeout')::interval) * 1000 AS ms) s`,
		lockMS, statementMS); err != nil {
		return fmt.Errorf("setting lock_timeout: %w", err)
	}
	return nil
}

// StatementTimeoutMargin is what a statement of pgseq's plan and apply
// transactions may take beyond the lock timeout before a statement_timeout
// set below that (by the role or the database) cancels it.
const StatementTimeoutMargin = time.Minute

// explainStatementTimeout says which timeout fired when err is a statement
// cancelled by statement_timeout (SQLSTATE 57014 while ctx is live).
func explainStatementTimeout(ctx context.Context, err error, lockTimeout time.Duration) error {
	var pgErr *pgconn.PgError
	if err == nil || ctx.Err() != nil || !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		return err
	}
	return fmt.Errorf("%w (the server's statement_timeout fired: pgseq keeps it at least %s, the lock timeout %s plus %s, "+
		"within its own transactions; a statement ran longer than that: raise statement_timeout for this role, or look for what held it up)",
		err, lockTimeout+StatementTimeoutMargin, lockTimeout, StatementTimeoutMargin)
}

// CounterProblemsError says that counters reference tables or columns the
// database does not have, or cannot number: nothing was planned. The CLI
// shows each problem at its place in the configuration.
type CounterProblemsError struct {
	Problems []inspect.Problem
}

func (e *CounterProblemsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = fmt.Sprintf("counter %q: %s: %s", p.Counter, p.Summary, p.Detail)
	}
	return strings.Join(parts, "\n")
}

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

// checkCounters checks the tables and columns of counters (see
// inspect.CheckCounters).
func checkCounters(ctx context.Context, q inspect.Querier, schema string, counters []catalog.Counter) error {
	problems, err := inspect.CheckCounters(ctx, q, schema, counters)
	if err != nil {
		return fmt.Errorf("checking counter tables: %w", err)
	}
	if len(problems) > 0 {
		return &CounterProblemsError{Problems: problems}
	}
	return nil
}

// checkNames checks what a configuration names in the database: the
// counters' tables and columns, and the access block's roles. It reports
// every problem at once: a *CounterProblemsError and an
// *AccessProblemsError, joined (errors.Join) when there are both, so that
// errors.As finds each and one run lists them all.
func checkNames(ctx context.Context, q inspect.Querier, schema string, counters []catalog.Counter, grants []catalog.Grant) error {
	counterErr := checkCounters(ctx, q, schema, counters)
	var cpe *CounterProblemsError
	if counterErr != nil && !errors.As(counterErr, &cpe) {
		return counterErr
	}
	accessErr := checkAccess(ctx, q, schema, grants)
	var ape *AccessProblemsError
	if accessErr != nil && !errors.As(accessErr, &ape) {
		return accessErr
	}
	return errors.Join(counterErr, accessErr)
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

// checkCounterOwners reports, before apply, the counters whose tables the
// applying role may not change as apply would: attaching a counter creates
// a trigger and a unique index on its table (the table's owner only, and
// CREATE on its schema); detaching one (deleting it, or moving it to
// another table or to none) drops them (the owner only). Each problem says
// which grant is missing.
func checkCounterOwners(ctx context.Context, q inspect.Querier, p *plan.Plan) error {
	var problems []inspect.Problem
	for _, c := range p.Changes {
		if c.Kind != plan.KindCounter {
			continue
		}
		before, _ := c.Before.(*catalog.Counter)
		after, _ := c.After.(*catalog.Counter)
		if after != nil && after.Attached() {
			t, err := readTableAccess(ctx, q, after.Table)
			if err != nil {
				return err
			}
			if t != nil && !t.owns {
				problems = append(problems, inspect.Problem{Counter: after.Name, Attr: "table", Summary: "Table owned by another role",
					Detail: fmt.Sprintf("pgseq apply attaches the counter with a trigger and a unique index on %s, which only the table's owner may create: "+
						"it belongs to %q and pgseq runs as %q. %s", after.Table, t.owner, t.me, t.remedy(after.Table))})
			}
			if t != nil && !t.create {
				problems = append(problems, inspect.Problem{Counter: after.Name, Attr: "table", Summary: "No CREATE on the table's schema",
					Detail: fmt.Sprintf("pgseq apply creates the counter's unique index on %s in its schema %s, which needs CREATE on that schema: "+
						"GRANT CREATE ON SCHEMA %s TO %s.", after.Table, t.schema, t.schema, ident(t.me))})
			}
		}
		if before != nil && before.Attached() && (after == nil || after.Table != before.Table) {
			t, err := readTableAccess(ctx, q, before.Table)
			if err != nil {
				return err
			}
			if t != nil && !t.owns {
				name := before.Name
				problems = append(problems, inspect.Problem{Counter: name, Attr: "table", Summary: "Table owned by another role",
					Detail: fmt.Sprintf("pgseq apply detaches counter %q from %s (it is deleted, or moved to another table), dropping its trigger and unique index there, which only the table's owner may do: "+
						"it belongs to %q and pgseq runs as %q. %s", name, before.Table, t.owner, t.me, t.remedy(before.Table))})
			}
		}
	}
	if len(problems) > 0 {
		return &CounterProblemsError{Problems: problems}
	}
	return nil
}

// tableAccess is what the applying role may do to a counter's table.
type tableAccess struct {
	owns, create      bool   // a member of its owner's role; CREATE on its schema
	owner, me, schema string // its owner, the applying role, its schema
}

// remedy says how the applying role may come to change table as its owner.
func (t *tableAccess) remedy(table string) string {
	return fmt.Sprintf("Grant the owner's role to this one (GRANT %s TO %s), change the table's owner (ALTER TABLE %s OWNER TO %s), or run pgseq apply as %q.",
		ident(t.owner), ident(t.me), quoteTable(table), ident(t.me), t.owner)
}

// readTableAccess reads what the applying role may do to table; nil when
// the table does not exist (CheckCounters reports that).
func readTableAccess(ctx context.Context, q inspect.Querier, table string) (*tableAccess, error) {
	var t tableAccess
	err := q.QueryRow(ctx, `SELECT pg_has_role(current_user, c.relowner, 'USAGE'), has_schema_privilege(c.relnamespace, 'CREATE'),
	                               pg_get_userbyid(c.relowner), current_user::text, c.relnamespace::regnamespace::text
	                        FROM pg_class c WHERE c.oid = to_regclass($1::text)`, quoteTable(table)).Scan(&t.owns, &t.create, &t.owner, &t.me, &t.schema)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("checking the owner of %s: %w", table, err)
	}
	return &t, nil
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
