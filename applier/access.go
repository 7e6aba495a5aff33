package applier

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// applyAccess executes p's access changes. Every role a change names ends
// with exactly the privileges of the levels it has after the plan: all it
// holds in the schema (tables, columns, sequences, functions, the schema
// itself) is revoked, and its levels granted again, in one round trip;
// then the grants table records its levels. A role that no longer exists
// is only forgotten. The levels a role ends with are those recorded (read
// here, under the apply lock) with p's creates added and deletes removed.
func applyAccess(ctx context.Context, tx pgx.Tx, p *plan.Plan) error {
	var roles []string
	created := map[string][]string{}
	deleted := map[string]map[string]bool{}
	for _, c := range p.Changes {
		if c.Kind != plan.KindAccess {
			continue
		}
		g, ok := c.After.(*catalog.Grant)
		if !ok {
			if g, ok = c.Before.(*catalog.Grant); !ok {
				return fmt.Errorf("%s: neither before nor after is an access level", c.Address)
			}
		}
		roles = appendOnce(roles, g.Role)
		switch c.Action {
		case plan.Create:
			created[g.Role] = append(created[g.Role], g.Level)
		case plan.Delete:
			if deleted[g.Role] == nil {
				deleted[g.Role] = map[string]bool{}
			}
			deleted[g.Role][g.Level] = true
		}
	}
	if len(roles) == 0 {
		return nil
	}
	sort.Strings(roles)
	schema := p.Schema

	// The levels each role ends with.
	final := map[string][]string{}
	rows, err := tx.Query(ctx, statement("access_levels", schema), roles)
	if err != nil {
		return fmt.Errorf("reading the access levels granted: %w", err)
	}
	var role, level string
	if _, err := pgx.ForEachRow(rows, []any{&role, &level}, func() error {
		if !deleted[role][level] {
			final[role] = appendOnce(final[role], level)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("reading the access levels granted: %w", err)
	}
	for r, levels := range created {
		for _, l := range levels {
			final[r] = appendOnce(final[r], l)
		}
	}

	rows, err = tx.Query(ctx, statement("access_existing_roles", schema), roles)
	if err != nil {
		return fmt.Errorf("looking up roles: %w", err)
	}
	existing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("looking up roles: %w", err)
	}
	for r := range final {
		if len(final[r]) > 0 && !containsString(existing, r) {
			return fmt.Errorf("granting access to role %q: the role does not exist (it was dropped after the plan was made?); create it or remove it from the access block", r)
		}
	}
	if len(existing) > 0 {
		if _, err := tx.Exec(ctx, accessStatements(schema, existing, final)); err != nil {
			return fmt.Errorf("granting and revoking access of %s: %w", strings.Join(existing, ", "), err)
		}
	}

	var recRoles, recLevels []string
	for _, r := range roles {
		for _, l := range final[r] {
			recRoles = append(recRoles, r)
			recLevels = append(recLevels, l)
		}
	}
	if _, err := tx.Exec(ctx, statement("access_record", schema), roles, recRoles, recLevels); err != nil {
		return fmt.Errorf("recording the access levels granted: %w", err)
	}
	return nil
}

// accessStatements writes the statements that leave each of roles (all
// existing) with exactly the privileges of its levels in final: revoke
// everything in the schema, then grant level by level. Every name is
// quoted; role names come from the configuration.
func accessStatements(schema string, roles []string, final map[string][]string) string {
	s := pgx.Identifier{schema}.Sanitize()
	var b strings.Builder
	all := quoteRoles(roles)
	for _, what := range []string{"ALL TABLES IN SCHEMA", "ALL SEQUENCES IN SCHEMA", "ALL FUNCTIONS IN SCHEMA", "SCHEMA"} {
		fmt.Fprintf(&b, "REVOKE ALL ON %s %s FROM %s;\n", what, s, all)
	}
	for _, level := range catalog.Levels {
		var to []string
		for _, r := range roles {
			if containsString(final[r], level) {
				to = append(to, r)
			}
		}
		if len(to) == 0 {
			continue
		}
		// One GRANT per privilege and kind of object, in the order of
		// LevelPrivileges (schema, tables, functions).
		type group struct{ privilege, kind string }
		var order []group
		objects := map[group][]string{}
		for _, p := range catalog.LevelPrivileges(level) {
			g := group{p.Privilege, p.Kind}
			if _, seen := objects[g]; !seen {
				order = append(order, g)
			}
			switch p.Kind {
			case catalog.ObjectSchema:
				objects[g] = append(objects[g], s)
			case catalog.ObjectFunction:
				name, args, _ := strings.Cut(p.Object, "(")
				objects[g] = append(objects[g], pgx.Identifier{schema, name}.Sanitize()+"("+args)
			default:
				objects[g] = append(objects[g], pgx.Identifier{schema, p.Object}.Sanitize())
			}
		}
		for _, g := range order {
			fmt.Fprintf(&b, "GRANT %s ON %s %s TO %s;\n", g.privilege, strings.ToUpper(g.kind), strings.Join(objects[g], ", "), quoteRoles(to))
		}
	}
	return b.String()
}

func quoteRoles(roles []string) string {
	q := make([]string, len(roles))
	for i, r := range roles {
		q[i] = pgx.Identifier{r}.Sanitize()
	}
	return strings.Join(q, ", ")
}

func appendOnce(xs []string, x string) []string {
	if containsString(xs, x) {
		return xs
	}
	return append(xs, x)
}

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
