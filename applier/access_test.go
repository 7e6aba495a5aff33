package applier_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/render"
)

// testRole is a login role created for one test (pgtest.NewRole).
type testRole = pgtest.Role

// newRole creates a login role named from the test's schema and suffix.
func (e *env) newRole(suffix string) testRole {
	e.T.Helper()
	return pgtest.NewRole(e.T, e.Pool, e.Schema, suffix)
}

// poolAs connects to the test database as role (pgtest.PoolAs).
func poolAs(t *testing.T, role testRole) *pgxpool.Pool {
	t.Helper()
	return pgtest.PoolAs(t, role)
}

// withAccess returns a configuration of one queue and one task type with
// the given grants.
func withAccess(grants ...catalog.Grant) catalog.State {
	s := config(4)
	s.Access = grants
	return s
}

// accessGolden compares got with testdata/access/NAME, after replacing each
// role name by its placeholder (role names are unique per test). It
// rewrites the file under -update.
func accessGolden(t *testing.T, name string, got string, roles map[string]testRole) {
	t.Helper()
	for placeholder, r := range roles {
		got = strings.ReplaceAll(got, r.Name, placeholder)
	}
	golden.Check(t, filepath.Join("testdata", "access", name), got)
}

// accessPlan is what pgseq plan shows (reconcile.Plan), and its human view.
func (e *env) accessPlan(desired catalog.State) (*plan.Plan, string) {
	e.T.Helper()
	p, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, desired)
	require.NoError(e.T, err)
	var b bytes.Buffer
	require.NoError(e.T, render.Plan(&b, p))
	return p, b.String()
}

// applyAccess applies desired as pgseq apply --auto-approve does and
// requires the next plan to be empty.
func (e *env) applyAccess(desired catalog.State) {
	e.T.Helper()
	_, err := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, desired, applier.Options{Client: "test", Version: "test"})
	require.NoError(e.T, err)
	p, human := e.accessPlan(desired)
	require.True(e.T, p.Empty(), "plan after apply must be empty:\n%s", human)
}

// may runs a privilege probe (one of the probe constants) for role.
func (e *env) may(role testRole, probe string) bool {
	e.T.Helper()
	var ok bool
	e.Scalar(&ok, probe, role.Name)
	return ok
}

const (
	probeClaim     = `SELECT has_function_privilege($1, '{{schema}}.claim(text, text, integer, integer)', 'EXECUTE')`
	probeEnqueue   = `SELECT has_function_privilege($1, '{{schema}}.enqueue(text, jsonb, text, integer, timestamptz, text)', 'EXECUTE')`
	probeNextValue = `SELECT has_function_privilege($1, '{{schema}}.next_value(text, text)', 'EXECUTE')`
	probeTasks     = `SELECT has_table_privilege($1, '{{schema}}.tasks', 'SELECT')`
	probeQueues    = `SELECT has_table_privilege($1, '{{schema}}.queues', 'SELECT')`
	probeSlotsUpd  = `SELECT has_table_privilege($1, '{{schema}}.concurrency_slots', 'UPDATE')`
	probeUsage     = `SELECT has_schema_privilege($1, '{{schema}}'::regnamespace::oid, 'USAGE')`
)

func TestAccessGrantChangeRevoke(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	worker, grafana, web, bystander := e.newRole("worker"), e.newRole("grafana"), e.newRole("web"), e.newRole("bystander")
	roles := map[string]testRole{"WORKER": worker, "GRAFANA": grafana, "WEB": web, "BYSTANDER": bystander}
	grant := func(level string, r testRole) catalog.Grant { return catalog.Grant{Level: level, Role: r.Name} }

	// Grant.
	first := withAccess(grant(catalog.LevelWork, worker), grant(catalog.LevelRead, grafana))
	p, human := e.accessPlan(first)
	require.Equal(t, plan.Summary{Add: 4}, p.Summary, human)
	accessGolden(t, "grant.txt", human, roles)
	e.applyAccess(first)
	require.True(t, e.may(worker, probeClaim))
	require.True(t, e.may(worker, probeQueues))
	require.False(t, e.may(worker, probeTasks), "a worker reads no task, so it never learns another worker's id")
	require.False(t, e.may(worker, probeSlotsUpd))
	require.False(t, e.may(worker, probeEnqueue))
	require.True(t, e.may(grafana, probeTasks))
	require.False(t, e.may(grafana, probeClaim))
	require.False(t, e.may(web, probeUsage), "a role never named gets nothing")

	// A bystander granted by hand is not pgseq's: it keeps its grant.
	e.Exec(`GRANT USAGE ON SCHEMA {{schema}} TO ` + pgx.Identifier{bystander.Name}.Sanitize())
	e.Exec(`GRANT SELECT ON {{schema}}.tasks TO ` + pgx.Identifier{bystander.Name}.Sanitize())

	// Change: grafana moves from read to enqueue, the worker gains
	// counters, web appears.
	second := withAccess(grant(catalog.LevelWork, worker), grant(catalog.LevelCounters, worker),
		grant(catalog.LevelEnqueue, grafana), grant(catalog.LevelEnqueue, web))
	p, human = e.accessPlan(second)
	require.Equal(t, plan.Summary{Add: 3, Destroy: 1}, p.Summary, human)
	accessGolden(t, "change.txt", human, roles)
	e.applyAccess(second)
	require.False(t, e.may(grafana, probeTasks))
	require.True(t, e.may(grafana, probeEnqueue))
	require.True(t, e.may(worker, probeNextValue))
	require.True(t, e.may(bystander, probeTasks), "a role pgseq does not manage is left alone")

	// Changed outside pgseq: the worker loses EXECUTE on claim and gains
	// UPDATE on the slots. The next plan repairs both.
	q := pgx.Identifier{worker.Name}.Sanitize()
	e.Exec(`REVOKE EXECUTE ON FUNCTION {{schema}}.claim(text, text, integer, integer) FROM ` + q)
	e.Exec(`GRANT UPDATE (used) ON {{schema}}.concurrency_slots TO ` + q)
	e.Exec(`GRANT UPDATE ON {{schema}}.concurrency_slots TO ` + q)
	p, human = e.accessPlan(second)
	require.Equal(t, plan.Summary{Change: 1}, p.Summary, human)
	accessGolden(t, "repair.txt", human, roles)
	e.applyAccess(second)
	require.True(t, e.may(worker, probeClaim))
	require.False(t, e.may(worker, probeSlotsUpd))

	// Revoke: no access block at all.
	none := withAccess()
	p, human = e.accessPlan(none)
	require.Equal(t, plan.Summary{Destroy: 4}, p.Summary, human)
	accessGolden(t, "revoke.txt", human, roles)
	e.applyAccess(none)
	for _, r := range []testRole{worker, grafana, web} {
		require.False(t, e.may(r, probeUsage), "%s keeps nothing", r.Name)
		require.False(t, e.may(r, probeClaim))
		require.False(t, e.may(r, probeEnqueue))
	}
	require.True(t, e.may(bystander, probeTasks), "a role pgseq does not manage is left alone")
	var n int
	e.Scalar(&n, `SELECT count(*) FROM {{schema}}.grants`)
	require.Zero(t, n)
}

func TestAccessRolesAreCheckedAtPlanTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var me string
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `SELECT current_user`).Scan(&me))
	missing := "r" + e.Schema[len(e.Schema)-8:] + "_missing"
	_, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, withAccess(
		catalog.Grant{Level: catalog.LevelWork, Role: missing},
		catalog.Grant{Level: catalog.LevelRead, Role: me}))
	var ape *reconcile.AccessProblemsError
	require.True(t, errors.As(err, &ape), "%v", err)
	require.Len(t, ape.Problems, 2)
	byRole := map[string]string{}
	for _, p := range ape.Problems {
		byRole[p.Role] = p.Summary
	}
	require.Equal(t, "Unknown role", byRole[missing])
	require.Equal(t, "Role owns the schema", byRole[me], "the role that applies will own the schema")

	// Nothing was created: not even the schema.
	var exists bool
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, e.Schema).Scan(&exists))
	require.False(t, exists)
}

// A saved plan carries access changes like any other: applied exactly, and
// refused as stale once the access levels changed since.
func TestAccessInSavedPlans(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	worker, reader := e.newRole("worker"), e.newRole("reader")
	e.apply(withAccess(catalog.Grant{Level: catalog.LevelWork, Role: worker.Name}))
	require.True(t, e.may(worker, probeClaim))

	saved := e.plan(withAccess(catalog.Grant{Level: catalog.LevelRead, Role: reader.Name}))
	var buf bytes.Buffer
	require.NoError(t, saved.Write(&buf))
	read, err := plan.Read(&buf)
	require.NoError(t, err)

	// Another apply changes the access levels first.
	e.apply(withAccess(catalog.Grant{Level: catalog.LevelWork, Role: worker.Name}, catalog.Grant{Level: catalog.LevelEnqueue, Role: worker.Name}))
	_, err = reconcile.Apply(e.ctx(), e.Pool, read, applier.Options{Client: "test"})
	require.ErrorIs(t, err, reconcile.ErrStale)

	again := e.plan(withAccess(catalog.Grant{Level: catalog.LevelRead, Role: reader.Name}))
	_, err = reconcile.Apply(e.ctx(), e.Pool, again, applier.Options{Client: "test"})
	require.NoError(t, err)
	require.True(t, e.may(reader, probeTasks))
	require.False(t, e.may(worker, probeClaim))
	require.False(t, e.may(worker, probeUsage))
}
