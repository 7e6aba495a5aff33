package applier_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/render"
)

// olderSchema leaves e's schema as the pgseq before this one left it: at
// the previous migration, with the default queue that pgseq applied.
func (e *env) olderSchema() int {
	e.T.Helper()
	older := migrations.Latest() - 1
	pgseqtest.MigrateTo(e.T, e.Pool, e.Schema, older)
	e.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries, backoff_initial, backoff_max, backoff_factor,
	            backoff_jitter, worker_timeout, leader_lease, retention_completed, retention_dead_letter)
	        VALUES ('default', 100, 3, '1s', '10m', 2, 0.2, '30s', '15s', '7 days', '30 days')`)
	return older
}

func (e *env) version() int {
	e.T.Helper()
	v, err := migrations.Version(e.ctx(), e.Pool, e.Schema)
	require.NoError(e.T, err)
	return v
}

// After an upgrade of pgseq, the plan of an unchanged configuration shows
// the schema upgrade as its change (not "No changes"), and its apply makes
// it: the upgrade never waits for, or rides along with, an unrelated change.
func TestPlanShowsAndApplyMakesAPendingSchemaUpgrade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	older := e.olderSchema()
	latest := migrations.Latest()
	desired := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}

	p, err := reconcile.Plan(e.ctx(), e.Pool, e.Schema, desired)
	require.NoError(t, err)
	require.Empty(t, p.Changes, "the configuration matches the database")
	last := migrations.All()[latest-1]
	require.Equal(t, &plan.SchemaUpgrade{From: older, To: latest, Migrations: []string{last.ID()}}, p.SchemaUpgrade)
	require.False(t, p.Empty(), "a pending upgrade is a change: plan --detailed-exitcode exits 2")

	var out bytes.Buffer
	require.NoError(t, render.Plan(&out, p))
	require.Contains(t, out.String(), fmt.Sprintf("pgseq's schema %q is at version %d; this pgseq's is %d.", e.Schema, older, latest))
	require.Contains(t, out.String(), fmt.Sprintf("Plan: schema upgrade from version %d to %d, 0 to add, 0 to change, 0 to destroy.", older, latest))
	require.NotContains(t, out.String(), "No changes. The database matches the configuration.")

	// A saved plan keeps the upgrade through its file and its checks.
	var file bytes.Buffer
	require.NoError(t, p.Write(&file))
	saved, err := plan.Read(&file)
	require.NoError(t, err)
	require.Equal(t, p.SchemaUpgrade, saved.SchemaUpgrade)

	// A plan that does not show the upgrade (another pgseq made it) is
	// refused: applying it would upgrade the schema unannounced.
	hidden := *saved
	hidden.SchemaUpgrade = nil
	_, err = reconcile.Apply(e.ctx(), e.Pool, &hidden, applier.Options{Client: "test", Version: "test"})
	require.ErrorIs(t, err, reconcile.ErrPlanMismatch)
	require.ErrorContains(t, err, fmt.Sprintf("would also upgrade schema %q from version %d to %d", e.Schema, older, latest))
	require.Equal(t, older, e.version(), "nothing was applied")

	res, err := reconcile.Apply(e.ctx(), e.Pool, saved, applier.Options{Client: "test", Version: "test"})
	require.NoError(t, err)
	require.Equal(t, []int{latest}, res.Migrated)
	require.Equal(t, latest, e.version())

	// Applied: the same plan file is now stale for its upgrade.
	_, err = reconcile.Apply(e.ctx(), e.Pool, saved, applier.Options{Client: "test", Version: "test"})
	require.ErrorIs(t, err, reconcile.ErrPlanMismatch)

	p, err = reconcile.Plan(e.ctx(), e.Pool, e.Schema, desired)
	require.NoError(t, err)
	require.True(t, p.Empty(), "nothing left to do after the upgrade")
}

// pgseq apply of an unchanged configuration (no plan file) upgrades too.
func TestApplyOfAnUnchangedConfigurationUpgrades(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.olderSchema()
	desired := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}}
	res, err := reconcile.PlanAndApply(e.ctx(), e.Pool, e.Schema, desired, applier.Options{Client: "test", Version: "test"}, nil)
	require.NoError(t, err)
	require.Equal(t, []int{migrations.Latest()}, res.Migrated)
	require.Equal(t, migrations.Latest(), e.version())
	require.Equal(t, plan.Summary{}, res.Summary)
}

func TestPlanValidatesItsSchemaUpgrade(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		u    plan.SchemaUpgrade
		want string
	}{
		{"not an upgrade", plan.SchemaUpgrade{From: 5, To: 5}, "is not an upgrade"},
		{"from nothing", plan.SchemaUpgrade{From: 0, To: 2, Migrations: []string{"001_a", "002_b"}}, "is not an upgrade"},
		{"too few migrations", plan.SchemaUpgrade{From: 3, To: 5, Migrations: []string{"004_a"}}, "lists 1 migrations, not 2"},
		{"wrong version", plan.SchemaUpgrade{From: 3, To: 4, Migrations: []string{"005_a"}}, "is not migration 004_"},
		{"bad name", plan.SchemaUpgrade{From: 3, To: 4, Migrations: []string{"004_DROP TABLE"}}, "is not migration 004_"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Plan{FormatVersion: plan.FormatVersion, Schema: "pgseq", Fingerprint: fmt.Sprintf("%064x", 1), SchemaUpgrade: &tc.u}
			require.ErrorContains(t, p.Validate(), tc.want)
		})
	}
}

// The apply that upgrades a schema past version 16 commits new type locks
// (one of 1,024 keys per schema) while runtime sessions still run version
// 16's, which take one key per type: it takes those too, and waits for a
// runtime call holding one, as version 16's apply did.
func TestUpgradingApplyWaitsForRuntimeOnVersion16Keys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pgseqtest.MigrateTo(t, e.Pool, e.Schema, 16)
	e.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries, backoff_initial, backoff_max, backoff_factor,
	            backoff_jitter, worker_timeout, leader_lease, retention_completed, retention_dead_letter)
	        VALUES ('default', 100, 3, '1s', '10m', 2, 0.2, '30s', '15s', '7 days', '30 days')`)
	e.Exec(`INSERT INTO {{schema}}.task_types (name, queue, concurrency) VALUES ('render', 'default', 2)`)
	e.Exec(`INSERT INTO {{schema}}.concurrency_slots (task_type, slot_group, capacity) VALUES ('render', 1, 2)`)

	// A runtime call on version 16 (its enqueue's first statement).
	runtime, err := e.Pool.Begin(e.ctx())
	require.NoError(t, err)
	defer runtime.Rollback(e.ctx()) //nolint:errcheck // ends the call
	e.On(runtime).Exec(`SELECT pg_advisory_xact_lock_shared(1885827953, {{schema}}.slot_lock_key('render'))`)

	desired := config(3)
	_, err = reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, desired, applier.Options{Client: "test", Version: "test", LockTimeout: 300 * time.Millisecond})
	require.Error(t, err, "the apply waits for the runtime call on the version 16 key")
	require.ErrorContains(t, err, "schema version 16")
	require.Equal(t, 16, e.version(), "nothing was applied")

	require.NoError(t, runtime.Rollback(e.ctx()))
	res, err := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, desired, applier.Options{Client: "test", Version: "test"})
	require.NoError(t, err)
	require.Contains(t, res.Migrated, 17)
	require.Equal(t, 3, capacitySum(e.slotsOf("render")))
}
