package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

// holding returns what a role holds when it has exactly levels, plus extra.
func holding(levels []string, extra ...catalog.Privilege) catalog.RoleAccess {
	ra := catalog.RoleAccess{Exists: true}
	seen := map[catalog.Privilege]bool{}
	for _, l := range levels {
		for _, p := range catalog.LevelPrivileges(l) {
			if !seen[p] {
				seen[p] = true
				ra.Held = append(ra.Held, p)
			}
		}
	}
	ra.Held = append(ra.Held, extra...)
	catalog.SortPrivileges(ra.Held)
	return ra
}

// without returns ra without p.
func without(ra catalog.RoleAccess, p catalog.Privilege) catalog.RoleAccess {
	var held []catalog.Privilege
	for _, h := range ra.Held {
		if h != p {
			held = append(held, h)
		}
	}
	ra.Held = held
	return ra
}

func TestPlanAccess(t *testing.T) {
	t.Parallel()
	def := catalog.DefaultQueue("default")
	grants := func(gs ...catalog.Grant) catalog.State {
		return catalog.State{Queues: []catalog.Queue{def}, Access: gs}
	}
	work := func(role string) catalog.Grant { return catalog.Grant{Level: catalog.LevelWork, Role: role} }
	read := func(role string) catalog.Grant { return catalog.Grant{Level: catalog.LevelRead, Role: role} }
	enqueue := func(role string) catalog.Grant { return catalog.Grant{Level: catalog.LevelEnqueue, Role: role} }
	live := func(m map[string]catalog.RoleAccess) catalog.State {
		s := grants()
		s.Live.Access = m
		return s
	}
	updateSlots := catalog.Privilege{Kind: catalog.ObjectTable, Object: "concurrency_slots", Privilege: "UPDATE"}
	claim := catalog.Privilege{Kind: catalog.ObjectFunction, Object: "claim(text, text, integer, integer)", Privilege: "EXECUTE"}

	tests := []struct {
		name        string
		desired     catalog.State
		actual      catalog.State
		wantSummary plan.Summary
	}{
		{
			// A new role, which holds table privileges granted by hand
			// before pgseq managed it: granted its level, the rest revoked.
			name:    "access_grant",
			desired: grants(enqueue("app_web"), work("app_worker"), read("grafana")),
			actual: func() catalog.State {
				s := live(map[string]catalog.RoleAccess{
					"app_worker": holding(nil, updateSlots),
					"app_web":    {Exists: true},
					"grafana":    {Exists: true},
				})
				return s
			}(),
			wantSummary: plan.Summary{Add: 3},
		},
		{
			// app_worker moves from work to read: work is revoked except
			// what read keeps (USAGE, SELECT on the settings tables).
			name:    "access_change_level",
			desired: grants(read("app_worker")),
			actual: func() catalog.State {
				s := live(map[string]catalog.RoleAccess{"app_worker": holding([]string{catalog.LevelWork})})
				s.Access = []catalog.Grant{work("app_worker")}
				return s
			}(),
			wantSummary: plan.Summary{Add: 1, Destroy: 1},
		},
		{
			// A role no longer named loses everything; one dropped since is
			// only forgotten.
			name:    "access_revoke",
			desired: grants(),
			actual: func() catalog.State {
				s := live(map[string]catalog.RoleAccess{
					"grafana": holding([]string{catalog.LevelRead}),
					"old":     {Exists: false},
				})
				s.Access = []catalog.Grant{read("grafana"), work("old")}
				return s
			}(),
			wantSummary: plan.Summary{Destroy: 2},
		},
		{
			// Changed outside pgseq: EXECUTE on claim revoked, UPDATE on
			// concurrency_slots granted. Both repaired by one update.
			name:    "access_repaired_after_changes_outside_pgseq",
			desired: grants(work("app_worker")),
			actual: func() catalog.State {
				s := live(map[string]catalog.RoleAccess{"app_worker": without(holding([]string{catalog.LevelWork}, updateSlots), claim)})
				s.Access = []catalog.Grant{work("app_worker")}
				return s
			}(),
			wantSummary: plan.Summary{Change: 1},
		},
		{
			name:    "access_unchanged",
			desired: grants(work("app_worker"), read("grafana")),
			actual: func() catalog.State {
				s := live(map[string]catalog.RoleAccess{
					"app_worker": holding([]string{catalog.LevelWork}),
					"grafana":    holding([]string{catalog.LevelRead}),
				})
				s.Access = []catalog.Grant{read("grafana"), work("app_worker")}
				return s
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plan(tt.desired, tt.actual, Options{Schema: "pgseq"})
			require.Equal(t, tt.wantSummary, p.Summary)
			require.NoError(t, p.Validate())
			for _, c := range p.Changes {
				require.Equal(t, plan.KindAccess, c.Kind)
			}

			goldenPlan(t, tt.name, p)
		})
	}
}

// After a simulated apply (the roles hold exactly their levels, recorded as
// granted), planning again changes nothing.
func TestPlanAccessConverges(t *testing.T) {
	t.Parallel()
	desired := catalog.State{Access: []catalog.Grant{
		{Level: catalog.LevelWork, Role: "w"}, {Level: catalog.LevelRead, Role: "w"}, {Level: catalog.LevelEnqueue, Role: "e"},
	}}
	actual := catalog.State{Live: catalog.Live{Access: map[string]catalog.RoleAccess{
		"w": {Exists: true, Held: []catalog.Privilege{{Kind: catalog.ObjectTable, Object: "tasks", Privilege: "DELETE"}}},
		"e": {Exists: true},
	}}}
	p := Plan(desired, actual, Options{Schema: "pgseq"})
	require.Equal(t, plan.Summary{Add: 3}, p.Summary)

	// The apply leaves each role with exactly the union of its levels.
	after := catalog.State{Access: append([]catalog.Grant(nil), desired.Access...), Live: catalog.Live{Access: map[string]catalog.RoleAccess{
		"w": holding([]string{catalog.LevelWork, catalog.LevelRead}),
		"e": holding([]string{catalog.LevelEnqueue}),
	}}}
	require.True(t, Plan(desired, after, Options{Schema: "pgseq"}).Empty())
}

// A saved plan whose access change was edited is refused by plan.Read.
func TestEditedAccessChangeIsInvalid(t *testing.T) {
	t.Parallel()
	g := catalog.Grant{Level: catalog.LevelWork, Role: "app_worker"}
	p := Plan(catalog.State{Access: []catalog.Grant{g}}, catalog.State{}, Options{Schema: "pgseq"})
	require.NoError(t, p.Validate())
	p.Changes[0].Address = `access.read["app_worker"]`
	require.ErrorContains(t, p.Validate(), "does not match type and name")
	p.Changes[0].Address = `access.work["app_worker"]`
	p.Changes[0].After = &catalog.Grant{Level: "admin", Role: "app_worker"}
	require.ErrorContains(t, p.Validate(), `after.name "admin[\"app_worker\"]" is not the change's name`)
	p.Changes[0].Name, p.Changes[0].Address = `admin["app_worker"]`, `access.admin["app_worker"]`
	require.ErrorContains(t, p.Validate(), "is not a valid access name")
}
