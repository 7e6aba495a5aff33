package counter

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
)

// Beginner starts transactions: a *pgxpool.Pool or a *pgx.Conn.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Retry bounds how InTx retries a transaction that failed with a deadlock
// or a serialization failure.
type Retry struct {
	// Attempts is the most times the transaction runs, the first included
	// (≥ 1).
	Attempts int
	// BaseDelay is the wait before the second attempt; it doubles for each
	// attempt after that, up to MaxDelay. Every wait is drawn uniformly
	// from [delay/2, delay], so transactions that collided once do not
	// collide again in step.
	BaseDelay time.Duration
	// MaxDelay caps the wait between attempts.
	MaxDelay time.Duration
}

// DefaultRetry is what InTx uses: 8 attempts, waits from 2ms doubling to at
// most 250ms (about half a second of waiting in all in the worst case,
// besides PostgreSQL's deadlock_timeout for each deadlock).
var DefaultRetry = Retry{Attempts: 8, BaseDelay: 2 * time.Millisecond, MaxDelay: 250 * time.Millisecond}

// InTx runs fn in a transaction on db and commits it, with DefaultRetry.
// See Retry.InTx.
func InTx(ctx context.Context, db Beginner, fn func(pgx.Tx) error) error {
	return DefaultRetry.InTx(ctx, db, fn)
}

// InTx runs fn in a transaction on db and commits it. When fn or the commit
// fails with a deadlock (40P01) or a serialization failure (40001), the
// transaction is rolled back and run again, from the start, up to
// r.Attempts times in all, with a jittered, growing wait in between: fn
// must therefore be safe to run again (do not keep results of an attempt
// outside it until InTx returns nil). Any other error from fn rolls back
// and is returned at once.
//
// This is the answer for transactions that take numbers from several
// scopes in separate calls: two of them taking the same scopes in opposite
// orders deadlock, PostgreSQL aborts one, and InTx runs it again, so that
// both succeed and the numbers stay gapless (the aborted attempt's numbers
// are given back). A single NextValues call with all the scopes avoids the
// deadlock altogether.
func (r Retry) InTx(ctx context.Context, db Beginner, fn func(pgx.Tx) error) error {
	attempts := max(r.Attempts, 1)
	delay := r.BaseDelay
	for attempt := 1; ; attempt++ {
		err := runTx(ctx, db, fn)
		if err == nil || !IsRetryable(err) {
			return err
		}
		if attempt >= attempts {
			return fmt.Errorf("transaction failed %d times, giving up: %w", attempt, err)
		}
		wait := delay
		if wait > 0 {
			wait = wait/2 + rand.N(wait/2+1)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting to retry the transaction: %w (last error: %w)", ctx.Err(), err)
		case <-t.C:
		}
		delay = min(max(2*delay, time.Millisecond), max(r.MaxDelay, r.BaseDelay))
	}
}

// runTx runs fn once in a transaction.
func runTx(ctx context.Context, db Beginner, fn func(pgx.Tx) error) (err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
		if err != nil {
			// The transaction is aborted or its connection gone; the
			// rollback's own error adds nothing.
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		if errors.Is(err, pgx.ErrTxCommitRollback) {
			return fmt.Errorf("committing: the transaction was rolled back by an earlier error fn did not return: %w", err)
		}
		return translate("committing the transaction", "", nil, err)
	}
	return nil
}
