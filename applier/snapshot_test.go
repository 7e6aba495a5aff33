package applier_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

// racingDB is a pool whose snapshot transactions (inspect.SnapshotOptions)
// see another session commit change between their first and second
// statements, as workers claiming tasks do while a plan is read.
type racingDB struct {
	*pgxpool.Pool
	change func()
}

func (r *racingDB) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	tx, err := r.Pool.BeginTx(ctx, opts)
	if err != nil || opts != inspect.SnapshotOptions {
		return tx, err
	}
	return &racingTx{Tx: tx, change: r.change}, nil
}

type racingTx struct {
	pgx.Tx
	statements int
	change     func()
}

func (t *racingTx) step() {
	t.statements++
	if t.statements == 2 {
		t.change()
	}
}

func (t *racingTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t.step()
	return t.Tx.Exec(ctx, sql, args...)
}

func (t *racingTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t.step()
	return t.Tx.Query(ctx, sql, args...)
}

func (t *racingTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	t.step()
	return t.Tx.QueryRow(ctx, sql, args...)
}

// Every live value of a plan comes from one snapshot (issue 7, defect 10):
// tasks that start running while the state is being read are in none of
// its figures, whichever reads the state.
func TestStateIsReadInOneSnapshot(t *testing.T) {
	t.Parallel()
	lower := config(2)
	readers := []struct {
		name string
		read func(e *env, db *racingDB) (running int, p *plan.Plan)
	}{
		{"inspect.ReadSnapshot", func(e *env, db *racingDB) (int, *plan.Plan) {
			s, _, err := inspect.ReadSnapshot(e.ctx(), db, e.Schema, lower)
			require.NoError(e.T, err)
			return s.Live.Running["render"], nil
		}},
		{"reconcile.Plan", func(e *env, db *racingDB) (int, *plan.Plan) {
			p, err := reconcile.Plan(e.ctx(), db, e.Schema, lower)
			require.NoError(e.T, err)
			return *p.Changes[0].Context.Running, p
		}},
		{"reconcile.ApplyConfig", func(e *env, db *racingDB) (int, *plan.Plan) {
			var seen *plan.Plan
			_, err := reconcile.ApplyConfig(e.ctx(), db, e.Schema, lower, applier.Options{Client: "test",
				Review: func(p *plan.Plan) error { seen = p; return nil }})
			require.NoError(e.T, err)
			return *seen.Changes[0].Context.Running, seen
		}},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.apply(config(10))
			db := &racingDB{Pool: e.Pool, change: func() {
				e.Exec(`INSERT INTO {{schema}}.tasks (queue, type, status) SELECT 'default', 'render', 'running' FROM generate_series(1, 3)`)
			}}
			running, p := r.read(e, db)
			require.Equal(t, 0, running, "tasks that started after the snapshot are not counted")
			if p != nil {
				for _, reason := range p.Changes[0].Reasons {
					require.False(t, strings.Contains(reason, "running"), "no figure from another snapshot: %q", reason)
				}
			}
			s := e.state()
			require.Equal(t, 3, s.Live.Running["render"], "the tasks did start, after the snapshot")
		})
	}
}

// InSnapshot's transaction is REPEATABLE READ and read-only: one snapshot,
// and nothing written through it.
func TestInSnapshotIsOneReadOnlySnapshot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	err := inspect.InSnapshot(e.ctx(), e.Pool, func(q inspect.Querier) error {
		var iso, readOnly, first, second string
		require.NoError(t, q.QueryRow(e.ctx(), `SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only'), txid_current_snapshot()::text`).Scan(&iso, &readOnly, &first))
		require.Equal(t, "repeatable read", iso)
		require.Equal(t, "on", readOnly)
		_, err := e.Pool.Exec(e.ctx(), `SELECT txid_current()`) // another transaction starts and ends
		require.NoError(t, err)
		require.NoError(t, q.QueryRow(e.ctx(), `SELECT txid_current_snapshot()::text`).Scan(&second))
		require.Equal(t, first, second, "the snapshot does not move")
		_, err = q.Exec(e.ctx(), `CREATE TABLE `+pgx.Identifier{e.Schema + "_x"}.Sanitize()+` (a int)`)
		return err
	})
	require.ErrorContains(t, err, "read-only transaction")
}

// The state is read on a second connection while the first holds the apply
// lock: a pool of one connection is refused at once rather than waiting
// for itself forever.
func TestApplyNeedsTwoConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(e.ctx(), cfg)
	require.NoError(t, err)
	defer one.Close()
	_, err = reconcile.ApplyConfig(e.ctx(), one, e.Schema, config(10), applier.Options{})
	require.ErrorContains(t, err, "the connection pool needs at least 2 connections")
}
