package counter_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/counter"
)

// TestLockTimeout: a counter with lock_timeout 200ms, one transaction
// holding a scope, another asking for a number in that scope: it fails
// after about 200ms with an error naming the counter and the scope. Other
// scopes are not held up, and the caller's own lock_timeout is restored
// after a successful call.
func TestLockTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	slow := standalone("invoice_number", 1)
	slow.LockTimeout = catalog.Duration(200 * time.Millisecond)
	tasks := e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable)
	tasks.LockTimeout = catalog.Duration(200 * time.Millisecond)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.apply(slow, tasks)

	holder, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	defer holder.Rollback(bg) //nolint:errcheck // ends the test's hold
	_, err = e.c.NextValue(bg, holder, "invoice_number", "2026")
	require.NoError(t, err)
	e.On(holder).Exec(`INSERT INTO {{app}}.tasks (project_id) VALUES (7)`)

	waiter, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	defer waiter.Rollback(bg) //nolint:errcheck // aborted anyway
	_, err = waiter.Exec(bg, `SET LOCAL lock_timeout = '1min'`)
	require.NoError(t, err)
	v, err := e.c.NextValue(bg, waiter, "invoice_number", "2025")
	require.NoError(t, err, "another scope is free")
	require.EqualValues(t, 1, v)
	var lt string
	require.NoError(t, waiter.QueryRow(bg, `SHOW lock_timeout`).Scan(&lt))
	require.Equal(t, "1min", lt, "next_value restores the caller's lock_timeout")

	started := time.Now()
	_, err = e.c.NextValue(bg, waiter, "invoice_number", "2026")
	took := time.Since(started)
	require.ErrorIs(t, err, counter.ErrLockTimeout)
	var lte *counter.LockTimeoutError
	require.ErrorAs(t, err, &lte)
	require.Equal(t, "invoice_number", lte.Counter)
	require.Equal(t, []string{"2026"}, lte.Scopes)
	require.Contains(t, err.Error(), `counter "invoice_number" scope "2026"`)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "55P03", pgErr.Code)
	require.GreaterOrEqual(t, took, 190*time.Millisecond)
	require.Less(t, took, 700*time.Millisecond, "bounded by the counter's lock_timeout, not the caller's 1min")
	t.Logf("after %v: %v", took.Round(time.Millisecond), err)

	// next_values names every scope it was asked for.
	started = time.Now()
	_, err = e.c.NextValues(bg, e.Pool, "invoice_number", []string{"2024", "2026"})
	require.ErrorAs(t, err, &lte)
	require.Equal(t, []string{"2024", "2026"}, lte.Scopes)
	require.Less(t, time.Since(started), 700*time.Millisecond)

	// An attached counter's trigger times out the same way; Translate
	// names the counter.
	started = time.Now()
	_, err = e.Pool.Exec(bg, e.SQL(`INSERT INTO {{app}}.tasks (project_id) VALUES (7)`))
	took = time.Since(started)
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "55P03", pgErr.Code)
	require.Less(t, took, 700*time.Millisecond)
	err = e.c.Translate(err)
	require.ErrorAs(t, err, &lte)
	require.Equal(t, "task_index", lte.Counter)
	require.ErrorIs(t, err, counter.ErrLockTimeout)
	t.Logf("insert after %v: %v", took.Round(time.Millisecond), err)

	require.NoError(t, e.c.Translate(nil))
	other := errors.New("other")
	require.Equal(t, other, e.c.Translate(other))
}
