// Package pgseqtest is the test harness the packages' tests share: a pgseq
// schema on the test database (package pgtest) with a configuration
// applied the way pgseq apply --auto-approve applies it
// (reconcile.PlanAndApply), on a real PostgreSQL; DB, which runs a test's
// SQL with {{schema}} replaced and fails the test on an error; and the
// invariants of the slot accounting in one SQL file (CheckInvariants).
// Golden files are package golden's.
package pgseqtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// NewSchema returns the test database's shared pool (pgtest.Pool) and a new
// schema of this test's own (pgtest.Schema, dropped when the test ends)
// with desired applied (Apply).
func NewSchema(t testing.TB, desired catalog.State) (*pgxpool.Pool, string) {
	t.Helper()
	pool, schema := pgtest.Pool(t), pgtest.Schema(t)
	Apply(t, pool, schema, desired)
	return pool, schema
}

// Apply applies desired to schema as pgseq apply --auto-approve does
// (reconcile.PlanAndApply without an approver), then requires that planning
// desired again gives an empty plan: what an apply leaves, the next plan
// must not change. The test fails on any error. It returns what the apply
// did.
func Apply(t testing.TB, db applier.DB, schema string, desired catalog.State) *applier.Result {
	t.Helper()
	ctx := context.Background()
	res, err := reconcile.PlanAndApply(ctx, db, schema, desired, applier.Options{Client: "test", Version: "test"}, nil)
	if err != nil {
		t.Fatalf("applying to schema %s: %v", schema, err)
	}
	p, err := reconcile.Plan(ctx, db, schema, desired)
	if err != nil {
		t.Fatalf("planning schema %s again after the apply: %v", schema, err)
	}
	if !p.Empty() {
		t.Fatalf("plan after apply must be empty; schema %s still plans %d added, %d changed, %d destroyed: %v",
			schema, p.Summary.Add, p.Summary.Change, p.Summary.Destroy, addresses(p.Changes))
	}
	return res
}

// addresses lists the addresses of changes, for messages.
func addresses(changes []plan.Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Address
	}
	return out
}

// MigrateTo brings schema to migration version (at most the latest), as the
// pgseq of that version left it: for tests of upgrades and of programs
// meeting an older schema.
func MigrateTo(t testing.TB, pool *pgxpool.Pool, schema string, version int) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatalf("migrating schema %s: %v", schema, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	if _, err := migrations.UpTo(ctx, tx, schema, version); err != nil {
		t.Fatalf("migrating schema %s to version %d: %v", schema, version, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("migrating schema %s: %v", schema, err)
	}
}
