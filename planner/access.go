package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// planAccess compares the access levels the configuration gives database
// roles with those pgseq granted (actual.Access, from the grants table),
// one change per level and role:
//   - a level the configuration gives and pgseq did not: create (grant);
//   - a level pgseq granted and the configuration no longer gives: delete
//     (revoke, minus what the role keeps through its other levels);
//   - a level given by both whose privileges were revoked outside pgseq:
//     update (granted again).
//
// A role the plan touches ends with exactly the privileges of its levels:
// the apply revokes everything else it holds in the schema, and the first
// change of the role says what that is (privileges granted outside pgseq).
// A role that holds such privileges and has no other change gets an update
// of its first level for them. Roles that no level names, and never did,
// are not pgseq's: they are never read or touched.
//
// actual.Live.Access says what each role holds; a role missing from it is
// taken to exist and to hold exactly its levels.
func planAccess(desired, actual catalog.State) []plan.Change {
	roleSet := map[string]bool{}
	for _, g := range desired.Access {
		roleSet[g.Role] = true
	}
	for _, g := range actual.Access {
		roleSet[g.Role] = true
	}
	roles := make([]string, 0, len(roleSet))
	for r := range roleSet {
		roles = append(roles, r)
	}
	sort.Strings(roles)

	var out []plan.Change
	for _, role := range roles {
		want := catalog.LevelsOf(desired.Access, role)
		have := catalog.LevelsOf(actual.Access, role)
		ra, known := actual.Live.Access[role]
		if !known {
			ra = catalog.RoleAccess{Exists: true}
			for _, l := range have {
				ra.Held = append(ra.Held, catalog.LevelPrivileges(l)...)
			}
		}
		out = append(out, planRole(role, want, have, ra)...)
	}
	sortChanges(out)
	return out
}

// planRole plans one role: want are the levels the configuration gives it,
// have those pgseq granted, ra what it holds.
func planRole(role string, want, have []string, ra catalog.RoleAccess) []plan.Change {
	var out []plan.Change
	change := func(level string, action plan.Action) *plan.Change {
		g := catalog.Grant{Level: level, Role: role}
		c := plan.Change{Address: Address(plan.KindAccess, g.Name()), Kind: plan.KindAccess, Name: g.Name(), Action: action}
		if action != plan.Delete {
			after := g
			c.After = &after
		}
		if action != plan.Create {
			before := g
			c.Before = &before
		}
		out = append(out, c)
		return &out[len(out)-1]
	}
	for _, level := range catalog.Levels {
		wanted, had := contains(want, level), contains(have, level)
		switch {
		case wanted && !had:
			c := change(level, plan.Create)
			c.Reasons = describe("grants", catalog.LevelPrivileges(level))
		case had && !wanted:
			c := change(level, plan.Delete)
			if !ra.Exists {
				c.Reasons = []string{"the role no longer exists: pgseq forgets it"}
				continue
			}
			revoked := minus(catalog.LevelPrivileges(level), union(want))
			c.Reasons = describe("revokes", revoked)
			if len(revoked) == 0 {
				c.Reasons = []string{"revokes nothing: the role keeps these privileges through its other levels"}
			}
		case wanted && had:
			if missing := ra.Missing(level); len(missing) > 0 && ra.Exists {
				c := change(level, plan.Update)
				c.Reasons = describe("revoked outside pgseq, granted again:", missing)
			}
		}
	}
	if !ra.Exists {
		return out
	}
	extra := ra.Beyond(append(append([]string{}, want...), have...)...)
	if len(extra) == 0 {
		return out
	}
	reasons := describe("granted outside pgseq, revoked:", extra)
	if len(out) == 0 {
		// Nothing else changes for the role, so it has a level both sides
		// give it: the repair goes there.
		c := change(want[0], plan.Update)
		c.Reasons = reasons
		return out
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	out[0].Reasons = append(out[0].Reasons, reasons...)
	return out
}

// describe writes privileges as reasons, one per privilege and kind of
// object: "grants EXECUTE on functions claim, complete", "grants USAGE on
// the schema".
func describe(verb string, ps []catalog.Privilege) []string {
	type group struct {
		privilege, kind string
		grantable       bool
	}
	var order []group
	objects := map[group][]string{}
	for _, p := range ps {
		g := group{p.Privilege, p.Kind, p.Grantable}
		if _, seen := objects[g]; !seen {
			order = append(order, g)
		}
		objects[g] = append(objects[g], p.Short())
	}
	out := make([]string, 0, len(order))
	for _, g := range order {
		s := verb + " " + g.privilege
		if g.grantable {
			s += " WITH GRANT OPTION"
		}
		names := objects[g]
		switch {
		case g.kind == catalog.ObjectSchema:
			s += " on the schema"
		case len(names) == 1:
			s += fmt.Sprintf(" on %s %s", g.kind, names[0])
		default:
			s += fmt.Sprintf(" on %ss %s", g.kind, strings.Join(names, ", "))
		}
		out = append(out, s)
	}
	return out
}

// union returns the privileges of levels, each once.
func union(levels []string) []catalog.Privilege {
	seen := map[catalog.Privilege]bool{}
	var out []catalog.Privilege
	for _, l := range levels {
		for _, p := range catalog.LevelPrivileges(l) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	catalog.SortPrivileges(out)
	return out
}

// minus returns the privileges of a that b does not hold.
func minus(a, b []catalog.Privilege) []catalog.Privilege {
	drop := make(map[catalog.Privilege]bool, len(b))
	for _, p := range b {
		drop[p] = true
	}
	var out []catalog.Privilege
	for _, p := range a {
		if !drop[p] {
			out = append(out, p)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
