package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/plan"
)

// CounterProblemsError says that counters reference tables or columns the
// database does not have, or cannot number: nothing was planned. The CLI
// shows each problem at its place in the configuration.
type CounterProblemsError struct {
	Problems []inspect.Problem
}

func (e *CounterProblemsError) Error() string {
	return lines(e.Problems, func(p inspect.Problem) string {
		return fmt.Sprintf("counter %q: %s: %s", p.Counter, p.Summary, p.Detail)
	})
}

// AccessProblemsError says that roles the access block names cannot be
// given an access level (they do not exist, are superusers, or own the
// schema): nothing was planned. The CLI shows each problem where the role
// is named in the configuration.
type AccessProblemsError struct {
	Problems []inspect.AccessProblem
}

func (e *AccessProblemsError) Error() string {
	return lines(e.Problems, func(p inspect.AccessProblem) string {
		return fmt.Sprintf("access: role %q: %s: %s", p.Role, p.Summary, p.Detail)
	})
}

// lines says each of problems on a line of its own.
func lines[P any](problems []P, line func(P) string) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = line(p)
	}
	return strings.Join(parts, "\n")
}

// checkAccess checks the roles grants name (see inspect.CheckAccess).
func checkAccess(ctx context.Context, q inspect.Querier, schema string, grants []catalog.Grant) error {
	problems, err := inspect.CheckAccess(ctx, q, schema, grants)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &AccessProblemsError{Problems: problems}
	}
	return nil
}

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

// quoteTable quotes "schema.table" as an identifier pair.
func quoteTable(qualified string) string {
	s, t := catalog.SplitTable(qualified)
	return pgx.Identifier{s, t}.Sanitize()
}

// ident quotes name as an SQL identifier.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }
