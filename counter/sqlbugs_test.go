//go:build sqlbugs

// Tests of defects in the counter runtime (migration 003 and the trigger
// applier/counters.go generates) that are still open; docs/sql-api.md
// lists both as known limitations. Each asserts what DESIGN.md promises ("never
// issued twice, never gaps among committed values") and fails until the
// defect is fixed; they are kept out of the default run so the suite stays
// green meanwhile. (Defects found with them and since fixed: UUID keys
// starting with a letter, reserve ignoring the scope, NULL scopes under
// advisory_lock; their tests are in the default run now.)
//
//	go test -tags sqlbugs -run SQLBug -v ./counter

package counter_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// TestSQLBugOnConflictBurnsNumbers: the counter_table trigger is a BEFORE
// INSERT trigger, and PostgreSQL runs BEFORE INSERT row triggers before an
// INSERT … ON CONFLICT checks for the conflict. An idempotent insert that
// hits an existing row (DO NOTHING, or DO UPDATE) inserts nothing but has
// already advanced the counter row, and the transaction commits: the next
// row's number leaves a gap. Design: "never gaps among committed values".
func TestSQLBugOnConflictBurnsNumbers(t *testing.T) {
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint,
	        idempotency_key text UNIQUE)`)
	e.apply(e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable))
	insert := `INSERT INTO {{app}}.tasks (project_id, idempotency_key) VALUES (1, $1) ON CONFLICT (idempotency_key) DO NOTHING`
	e.Exec(insert, "a") // index 1
	e.Exec(insert, "a") // a retry of the same request: nothing inserted
	e.Exec(`INSERT INTO {{app}}.tasks (project_id, idempotency_key) VALUES (1, 'b')
	        ON CONFLICT (idempotency_key) DO UPDATE SET project_id = excluded.project_id`)
	e.Exec(`INSERT INTO {{app}}.tasks (project_id, idempotency_key) VALUES (1, 'b')
	        ON CONFLICT (idempotency_key) DO UPDATE SET project_id = excluded.project_id`) // upsert of an existing row
	e.Exec(insert, "c")
	values := e.valuesByScope(`SELECT project_id::text, index FROM {{app}}.tasks`)
	require.Equal(t, []int64{1, 2, 3}, sorted(values["1"]), "three rows, numbered 1, 2, 3 (got a gap wherever a conflict happened)")
}

// TestSQLBugAdvisoryLockReissuesAfterDelete: with strategy advisory_lock
// the next number is max(column)+1 of the rows present, so deleting the
// scope's newest row and inserting again issues its number a second time.
// Design: "never issued twice". (The counter_table strategy remembers.)
func TestSQLBugAdvisoryLockReissuesAfterDelete(t *testing.T) {
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.apply(e.attached("task_index", "tasks", 1, catalog.StrategyAdvisoryLock))
	var first, second int64
	e.Scalar(&first, `INSERT INTO {{app}}.tasks (project_id) VALUES (1) RETURNING index`)
	e.Exec(`DELETE FROM {{app}}.tasks WHERE index = $1`, first)
	e.Scalar(&second, `INSERT INTO {{app}}.tasks (project_id) VALUES (1) RETURNING index`)
	require.NotEqual(t, first, second, "PROJ-%d was issued to a deleted row and is issued again", first)
}

func sorted(vs []int64) []int64 { return slices.Sorted(slices.Values(vs)) }
