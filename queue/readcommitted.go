package queue

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// querier is what the worker's calls run on: the pool itself, or
// readCommitted when the pool's sessions default to another isolation
// level.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// readCommitted runs each call in a READ COMMITTED transaction of its own:
// pgseq's calls are written for READ COMMITTED, and under a session
// default of REPEATABLE READ or SERIALIZABLE concurrent claims and
// completions fail with serialization errors (40001). Each call then takes
// three round trips (BEGIN, the call, COMMIT) instead of one; the worker
// uses it only when the sessions' default is not READ COMMITTED.
type readCommitted struct{ pool *pgxpool.Pool }

var readCommittedTx = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}

func (r readCommitted) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	err := pgx.BeginTxFunc(ctx, r.pool, readCommittedTx, func(tx pgx.Tx) error {
		var err error
		tag, err = tx.Exec(ctx, sql, args...)
		return err
	})
	return tag, err
}

func (r readCommitted) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return readCommittedRow{pool: r.pool, ctx: ctx, sql: sql, args: args}
}

// readCommittedRow runs its statement when it is scanned, as pgx's rows
// report their error then.
type readCommittedRow struct {
	pool *pgxpool.Pool
	ctx  context.Context
	sql  string
	args []any
}

func (r readCommittedRow) Scan(dest ...any) error {
	return pgx.BeginTxFunc(r.ctx, r.pool, readCommittedTx, func(tx pgx.Tx) error {
		return tx.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
	})
}

func (r readCommitted) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tx, err := r.pool.BeginTx(ctx, readCommittedTx)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return &readCommittedRows{Rows: rows, tx: tx, ctx: ctx}, nil
}

// readCommittedRows ends its transaction when the rows end: it commits
// once they were all read without error (a failed commit is then their
// error), else it rolls back.
type readCommittedRows struct {
	pgx.Rows
	tx    pgx.Tx
	ctx   context.Context
	ended bool
	err   error
}

func (r *readCommittedRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.end()
	return false
}

func (r *readCommittedRows) Close() { r.end() }

func (r *readCommittedRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (r *readCommittedRows) end() {
	if r.ended {
		return
	}
	r.ended = true
	r.Rows.Close()
	if r.Rows.Err() != nil {
		_ = r.tx.Rollback(context.WithoutCancel(r.ctx))
		return
	}
	r.err = r.tx.Commit(r.ctx)
}
