package counter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/counter"
)

func TestNextValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.apply(standalone("invoice_number", 1000), e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable))

	v, err := e.c.NextValue(bg, e.Pool, "invoice_number", "")
	require.NoError(t, err)
	require.EqualValues(t, 1000, v)

	// Rolled back: the number comes back.
	err = pgx.BeginFunc(bg, e.Pool, func(tx pgx.Tx) error {
		v, err := e.c.NextValue(bg, tx, "invoice_number", "")
		require.NoError(t, err)
		require.EqualValues(t, 1001, v)
		return errors.New("roll back")
	})
	require.Error(t, err)
	v, err = e.c.NextValue(bg, e.Pool, "invoice_number", "")
	require.NoError(t, err)
	require.EqualValues(t, 1001, v)

	// Values in the order of the scopes; a scope named twice gets two.
	vs, err := e.c.NextValues(bg, e.Pool, "invoice_number", []string{"b", "", "a", "b"})
	require.NoError(t, err)
	require.Equal(t, []int64{1000, 1002, 1000, 1001}, vs)
	vs, err = e.c.NextValues(bg, e.Pool, "invoice_number", nil)
	require.NoError(t, err)
	require.Empty(t, vs)

	_, err = e.c.NextValue(bg, e.Pool, "nope", "")
	require.ErrorIs(t, err, counter.ErrUnknownCounter)
	require.ErrorContains(t, err, `next value of counter "nope" scope "": unknown counter "nope" (SQLSTATE PS021)`)
	_, err = e.c.NextValues(bg, e.Pool, "nope", []string{"a"})
	require.ErrorIs(t, err, counter.ErrUnknownCounter)
	_, err = e.c.NextValue(bg, e.Pool, "task_index", "1")
	require.ErrorIs(t, err, counter.ErrWrongKind)

	// Counter rows are protected from the application.
	_, err = e.Pool.Exec(bg, e.SQL(`DELETE FROM {{schema}}.counter_values`))
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, counter.CodeProtected, pgErr.Code)

	require.Equal(t, e.Schema, e.c.Schema())
	require.Equal(t, "pgseq", counter.New("").Schema())
}

func TestResolveKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.projects (id bigint PRIMARY KEY, key text NOT NULL UNIQUE)`)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL REFERENCES {{app}}.projects, index bigint)`)
	e.Exec(`INSERT INTO {{app}}.projects VALUES (1, 'PROJ'), (2, 'ENG')`)
	tasks := e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable)
	tasks.PrefixFrom = &catalog.PrefixSource{Table: e.app + ".projects", Column: "key"}
	invoices := standalone("invoice_number", 1)
	invoices.Prefix = "INV"
	e.apply(tasks, invoices)
	var eng2 string
	for i := 0; i < 2; i++ {
		e.Scalar(&eng2, `INSERT INTO {{app}}.tasks (project_id) VALUES (2) RETURNING id::text`)
	}
	_, err := e.c.NextValue(bg, e.Pool, "invoice_number", "")
	require.NoError(t, err)

	for key, want := range map[string]counter.Resolved{
		"ENG-2":    {Counter: "task_index", Scope: "2", Number: 2, RowID: eng2},
		" eng-02 ": {Counter: "task_index", Scope: "2", Number: 2, RowID: eng2},
		eng2:       {Counter: "task_index", Scope: "2", Number: 2, RowID: eng2},
		"inv-1":    {Counter: "invoice_number", Number: 1},
	} {
		got, err := e.c.ResolveKey(bg, e.Pool, key)
		require.NoError(t, err, key)
		require.Equal(t, []counter.Resolved{want}, got, key)
	}

	for key, want := range map[string]error{
		"NOPE-1":   counter.ErrUnknownPrefix,
		"PROJ-12a": counter.ErrMalformedKey,
		"":         counter.ErrMalformedKey,
		"PROJ-1":   counter.ErrNotFound,
		"INV-2":    counter.ErrNotFound,
		"999999":   counter.ErrNotFound,
	} {
		_, err := e.c.ResolveKey(bg, e.Pool, key)
		require.ErrorIs(t, err, want, key)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, "the database error is kept")
		var ce *counter.Error
		require.ErrorAs(t, err, &ce)
		require.Equal(t, pgErr.Code, ce.Code)
		require.Contains(t, err.Error(), pgErr.Message)
	}
	_, err = e.c.ResolveKey(bg, e.Pool, "nope-1")
	require.EqualError(t, err, `resolving key "nope-1": unknown key prefix "NOPE" (SQLSTATE PS010)`)
}

// TestInTx: retryable errors are retried a bounded number of times, others
// returned at once; the context ends the waiting.
func TestInTx(t *testing.T) {
	t.Parallel()
	pool := newEnv(t).Pool
	raise := func(ctx context.Context, tx pgx.Tx, code string) error {
		_, err := tx.Exec(ctx, `SELECT set_config('pgseq.test', $1, true)`, code)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DO $$ BEGIN RAISE EXCEPTION 'raised %', current_setting('pgseq.test') USING ERRCODE = current_setting('pgseq.test'); END $$`)
		return err
	}

	attempts := 0
	err := counter.InTx(bg, pool, func(tx pgx.Tx) error {
		attempts++
		if attempts < 3 {
			return raise(bg, tx, "40001")
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, attempts, "serialization failures are retried")

	attempts = 0
	err = counter.Retry{Attempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}.InTx(bg, pool, func(tx pgx.Tx) error {
		attempts++
		return raise(bg, tx, "40P01")
	})
	require.Equal(t, 4, attempts)
	require.ErrorContains(t, err, "transaction failed 4 times, giving up")
	require.True(t, counter.IsRetryable(err))

	attempts = 0
	err = counter.InTx(bg, pool, func(tx pgx.Tx) error {
		attempts++
		return raise(bg, tx, "23505")
	})
	require.Equal(t, 1, attempts, "other errors are not retried")
	require.False(t, counter.IsRetryable(err))

	ctx, cancel := context.WithCancel(bg)
	err = counter.Retry{Attempts: 10, BaseDelay: time.Hour, MaxDelay: time.Hour}.InTx(ctx, pool, func(tx pgx.Tx) error {
		cancel()
		return raise(bg, tx, "40P01")
	})
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, counter.IsRetryable(err), "the last error is kept")
}

// TestResolveUUID: a UUID primary key resolves, whether it starts with a
// digit or with a letter (which looks like a PREFIX-… key).
func TestResolveUUID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.tasks (id uuid PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.apply(e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable))
	const digit, letter = "4f8a9c2d-1e3b-4a7c-b5e1-9c8f2a1d0e3b", "d4f8a9c2-1e3b-4a7c-b5e1-9c8f2a1d0e3b"
	e.Exec(`INSERT INTO {{app}}.tasks (id, project_id) VALUES ($1, 1), ($2, 1)`, digit, letter)
	for n, id := range []string{digit, letter} {
		got, err := e.c.ResolveKey(bg, e.Pool, id)
		require.NoError(t, err, id)
		require.Equal(t, []counter.Resolved{{Counter: "task_index", Scope: "1", Number: int64(n + 1), RowID: id}}, got)
	}
	got, err := e.c.ResolveKey(bg, e.Pool, strings.ToUpper(letter))
	require.NoError(t, err, "UUIDs are case-insensitive")
	require.Len(t, got, 1)
}

// TestNullScopeIsRefused: a numbered row's scope must not be NULL, with
// either strategy (advisory_lock used to give every such row the same
// number); the refusal gives the number back.
func TestNullScopeIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(`CREATE TABLE {{app}}.a (id bigserial PRIMARY KEY, project_id bigint, index bigint)`)
	e.Exec(`CREATE TABLE {{app}}.b (id bigserial PRIMARY KEY, project_id bigint, index bigint)`)
	e.apply(e.attached("numbers_a", "a", 1, catalog.StrategyCounterTable), e.attached("numbers_b", "b", 1, catalog.StrategyAdvisoryLock))
	for _, table := range []string{"a", "b"} {
		for i := 0; i < 2; i++ {
			_, err := e.Pool.Exec(bg, e.SQL(`INSERT INTO {{app}}.`+table+` (project_id) VALUES (NULL)`))
			var pgErr *pgconn.PgError
			require.ErrorAs(t, err, &pgErr, table)
			require.Equal(t, "23502", pgErr.Code, pgErr.Message)
		}
		var n int64
		e.Scalar(&n, `INSERT INTO {{app}}.`+table+` (project_id) VALUES (1) RETURNING index`)
		require.EqualValues(t, 1, n, table)
	}
}
