package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgcode"
)

// holdTypeLocks begins a transaction that takes the advisory locks of types
// in schema as sql does (exclusive: as pgseq apply does), and keeps it open
// until the test ends.
func holdTypeLocks(t *testing.T, r *rt, sql string, types ...string) {
	t.Helper()
	tx, err := r.Pool.Begin(bg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	r.On(tx).Exec(sql, types)
}

// tryTypeLocks runs sql (taking type locks) in a transaction of its own that
// gives up after lock_timeout; it returns the error, a lock timeout
// (55P03) when the locks are held elsewhere.
func tryTypeLocks(t *testing.T, r *rt, sql string, types ...string) error {
	t.Helper()
	tx, err := r.Pool.Begin(bg)
	require.NoError(t, err)
	defer tx.Rollback(bg) //nolint:errcheck // read-only use
	_, err = tx.Exec(bg, `SET LOCAL lock_timeout = '200ms'`)
	require.NoError(t, err)
	_, err = tx.Exec(bg, r.SQL(sql), types)
	return err
}

func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgcode.LockNotAvailable
}

// A task type's advisory locks are its schema's (version 10): an apply
// holding the locks of "render" in one schema holds back neither the
// admissions nor the completions of "render" in another schema of the same
// database, while it still excludes the runtime of its own schema.
func TestTypeLocksBelongToTheirSchema(t *testing.T) {
	t.Parallel()
	a := newRT(t, state(queueCfg("q"), task("render", 2)))
	b := newRT(t, state(queueCfg("q"), task("render", 2)))
	holdTypeLocks(t, a, `SELECT {{schema}}.lock_types($1, true)`, "render")

	// Schema b: completions take the lock shared, claims admit.
	require.NoError(t, tryTypeLocks(t, b, `SELECT {{schema}}.lock_types($1)`, "render"))
	require.NoError(t, tryTypeLocks(t, b, `SELECT {{schema}}.lock_admission($1)`, "render"))
	b.register("w")
	b.enqueueN("render", 3)
	ids, err := claim(bg, b.Pool, b.Schema, "q", "w", 10)
	require.NoError(t, err)
	require.Len(t, ids, 2, "the limit admits 2 in schema b while schema a's apply holds its own render")

	// Schema a: its own runtime waits for the apply.
	err = tryTypeLocks(t, a, `SELECT {{schema}}.lock_types($1)`, "render")
	require.True(t, isLockTimeout(err), "the runtime of schema a waits for its apply: %v", err)
}

// While the upgrade to version 17 commits, a runtime session may still hold
// a type's lock under version 16's key (one per type, slot_lock_key): the
// apply that upgrades takes those keys too (lock_types_v16) and waits for
// it; the runtime on the new definitions does not.
func TestUpgradingApplyExcludesRuntimeOnVersion16Keys(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("render", 2)))
	holdTypeLocks(t, r, `SELECT pg_advisory_xact_lock_shared(1885827953, {{schema}}.slot_lock_key(($1::text[])[1]))`, "render")
	err := tryTypeLocks(t, r, `SELECT {{schema}}.lock_types_v16($1)`, "render")
	require.True(t, isLockTimeout(err), "the upgrading apply waits for the session on the version 16 key: %v", err)
	require.NoError(t, tryTypeLocks(t, r, `SELECT {{schema}}.lock_types($1, true)`, "render"),
		"version 17's keys are others")
	require.NoError(t, tryTypeLocks(t, r, `SELECT {{schema}}.lock_types($1)`, "render"))
}

// An apply's exclusive type locks are at most 1,024 entries of the
// server's lock table, however many types it changes (version 17): 20,000
// types filled a default server's table before.
func TestExclusiveTypeLocksAreBounded(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("render", 2)))
	tx, err := r.Pool.Begin(bg)
	require.NoError(t, err)
	defer tx.Rollback(bg) //nolint:errcheck // read-only use
	r.On(tx).Exec(`SELECT {{schema}}.lock_types(ARRAY(SELECT 'type:' || g FROM generate_series(1, 20000) g), true)`)
	var n int
	require.NoError(t, tx.QueryRow(bg, `SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND granted`).Scan(&n))
	require.LessOrEqual(t, n, 1024)
	require.Greater(t, n, 1000, "20,000 types fill nearly every one of the 1,024 keys")

	// And they exclude the runtime of those types: any one of them.
	err = tryTypeLocks(t, r, `SELECT {{schema}}.lock_types($1)`, "type:12345")
	require.True(t, isLockTimeout(err), "the runtime waits for the apply: %v", err)
}

// type_lock_key is inlined where it is called: the runtime computes the
// keys of a completion batch's types in its own statement, not by calling
// an SQL function once per type. An IMMUTABLE function is inlined only
// when everything in it is immutable.
func TestTypeLockKeyIsInlined(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("render", 2)))
	rows, err := r.Pool.Query(bg, r.SQL(`EXPLAIN (VERBOSE) SELECT {{schema}}.type_lock_key(u.t) FROM unnest(ARRAY['a', 'b']) AS u(t)`))
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	plan := strings.Join(lines, "\n")
	require.Contains(t, plan, "hashtext(", "the body in the plan:\n%s", plan)
	require.NotContains(t, plan, "type_lock_key(", "no call of the function:\n%s", plan)
}
