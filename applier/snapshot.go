package applier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/inspect"
)

// Snapshot runs read in one snapshot of db (inspect.InSnapshot) with the
// lock waits of an apply, without the apply lock: pgseq plan reads the
// state so, and pgseq apply before asking for approval. Reading a
// counter's table waits for the locks other sessions hold on it:
// lockTimeout bounds each wait (DefaultLockTimeout when not positive), and
// a wait that times out is a *LockWaitError naming the sessions that held
// the lock (when db can run a query besides the snapshot: a pool).
func Snapshot(ctx context.Context, db inspect.TxBeginner, lockTimeout time.Duration, read func(q inspect.Querier) error) error {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	watch := watchLocks(ctx, db, lockTimeout)
	defer watch.close()
	err := inspect.InSnapshot(ctx, db, func(q inspect.Querier) error {
		watch.add(q)
		if err := setLockTimeout(ctx, q, lockTimeout); err != nil {
			return err
		}
		return read(q)
	})
	return explainStatementTimeout(ctx, watch.explain(err), lockTimeout)
}

// setLockTimeout bounds every lock wait of q's transaction by timeout.
//
// A statement_timeout below timeout + StatementTimeoutMargin (a role's or a
// database's setting, as managed databases often set) is raised to that
// for the transaction too: pgseq's lock waits are bounded by its own lock
// timeout, not cut short by a shorter statement timeout with a bare
// "canceling statement due to statement timeout".
func setLockTimeout(ctx context.Context, q inspect.Querier, timeout time.Duration) error {
	lockMS := max(timeout.Milliseconds(), 1)
	statementMS := lockMS + StatementTimeoutMargin.Milliseconds()
	if _, err := q.Exec(ctx, `SELECT set_config('lock_timeout', $1::bigint::text || 'ms', true),
	       CASE WHEN s.ms > 0 AND s.ms < $2::bigint THEN set_config('statement_timeout', $2::bigint::text || 'ms', true) END
	FROM (SELECT extract(epoch FROM current_setting('statement_timeout')::interval) * 1000 AS ms) s`,
		lockMS, statementMS); err != nil {
		return fmt.Errorf("setting lock_timeout: %w", err)
	}
	return nil
}

// StatementTimeoutMargin is what a statement of pgseq's plan and apply
// transactions may take beyond the lock timeout before a statement_timeout
// set below that (by the role or the database) cancels it.
const StatementTimeoutMargin = time.Minute

// explainStatementTimeout says which timeout fired when err is a statement
// cancelled by statement_timeout (SQLSTATE 57014 while ctx is live).
func explainStatementTimeout(ctx context.Context, err error, lockTimeout time.Duration) error {
	var pgErr *pgconn.PgError
	if err == nil || ctx.Err() != nil || !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		return err
	}
	return fmt.Errorf("%w (the server's statement_timeout fired: pgseq keeps it at least %s, the lock timeout %s plus %s, "+
		"within its own transactions; a statement ran longer than that: raise statement_timeout for this role, or look for what held it up)",
		err, lockTimeout+StatementTimeoutMargin, lockTimeout, StatementTimeoutMargin)
}
