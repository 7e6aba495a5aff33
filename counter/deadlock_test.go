package counter_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/counter"
)

// crossed runs two transactions that take numbers from scopes a and b in
// opposite orders, each pausing after its first number until the other has
// taken its own, so that they deadlock. take runs one transaction and calls
// meet after its first number; only the first call of meet pauses.
func crossed(t *testing.T, take func(ctx context.Context, order [2]string, meet func()) error) [2]error {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	var ready sync.WaitGroup
	ready.Add(2)
	var errs [2]error
	var wg sync.WaitGroup
	for i, order := range [][2]string{{"a", "b"}, {"b", "a"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			meet := func() {
				once.Do(func() {
					ready.Done()
					ready.Wait()
				})
			}
			errs[i] = take(ctx, order, meet)
		}()
	}
	wg.Wait()
	return errs
}

// TestOppositeOrderDeadlocks shows what happens when two transactions take
// numbers from two scopes in opposite orders in separate calls:
// PostgreSQL detects the deadlock (after deadlock_timeout) and aborts one
// of them with 40P01, which the client reports as a retryable ErrDeadlock;
// the other commits. With InTx the aborted one runs again and both
// succeed, and the numbers stay gapless. One NextValues call with both
// scopes, in any order, never deadlocks.
func TestOppositeOrderDeadlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(standalone("pair", 1))
	e.Exec(`CREATE TABLE {{app}}.taken (scope text, value bigint)`)
	record := e.SQL(`INSERT INTO {{app}}.taken VALUES ($1, $2)`)

	takeBoth := func(ctx context.Context, tx pgx.Tx, order [2]string, meet func()) error {
		for i, s := range order {
			v, err := e.c.NextValue(ctx, tx, "pair", s)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, record, s, v); err != nil {
				return err
			}
			if i == 0 {
				meet()
			}
		}
		return nil
	}

	t.Run("plain transactions: one is aborted", func(t *testing.T) {
		errs := crossed(t, func(ctx context.Context, order [2]string, meet func()) error {
			tx, err := e.Pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
			if err := takeBoth(ctx, tx, order, meet); err != nil {
				return err
			}
			return tx.Commit(ctx)
		})
		var failed error
		for _, err := range errs {
			if err != nil {
				require.Nil(t, failed, "only one transaction is aborted")
				failed = err
			}
		}
		require.Error(t, failed, "one of the two transactions is aborted")
		require.ErrorIs(t, failed, counter.ErrDeadlock)
		require.True(t, counter.IsRetryable(failed))
		var pgErr *pgconn.PgError
		require.ErrorAs(t, failed, &pgErr)
		require.Equal(t, "40P01", pgErr.Code)
		require.Contains(t, failed.Error(), `counter "pair" scope`)
		t.Logf("aborted: %v", failed)
		requireGapless(t, e.valuesByScope(`SELECT scope, value FROM {{app}}.taken`), 1)
		require.Equal(t, map[string]int64{"a": 1, "b": 1}, e.counterValues("pair"), "the aborted transaction's number was given back")
	})

	t.Run("InTx retries to success", func(t *testing.T) {
		var attempts atomic.Int32
		errs := crossed(t, func(ctx context.Context, order [2]string, meet func()) error {
			return counter.InTx(ctx, e.Pool, func(tx pgx.Tx) error {
				attempts.Add(1)
				return takeBoth(ctx, tx, order, meet)
			})
		})
		require.NoError(t, errors.Join(errs[:]...))
		require.EqualValues(t, 3, attempts.Load(), "one transaction ran twice")
		counts := requireGapless(t, e.valuesByScope(`SELECT scope, value FROM {{app}}.taken`), 1)
		require.Equal(t, map[string]int{"a": 3, "b": 3}, counts)
	})

	t.Run("next_values never deadlocks", func(t *testing.T) {
		// A third transaction holds scope a, so both calls are inside
		// next_values, waiting, at the same time: each locks a before b,
		// whatever order it was given.
		holder, err := e.Pool.Begin(bg)
		require.NoError(t, err)
		_, err = e.c.NextValue(bg, holder, "pair", "a")
		require.NoError(t, err)
		var wg sync.WaitGroup
		var errs [2]error
		var got [2][]int64
		for i, order := range [][]string{{"a", "b"}, {"b", "a"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = counter.Retry{Attempts: 1}.InTx(bg, e.Pool, func(tx pgx.Tx) error {
					vs, err := e.c.NextValues(bg, tx, "pair", order)
					got[i] = vs
					if err == nil {
						for j, s := range order {
							if _, err := tx.Exec(bg, record, s, vs[j]); err != nil {
								return err
							}
						}
					}
					return err
				})
			}()
		}
		// Poll until both calls wait (or the deadline passes), then assert.
		var waiting int
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			e.Scalar(&waiting, `SELECT count(*) FROM pg_stat_activity
				WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0 AND datname = current_database()`, e.Schema+`".next_values`)
			if waiting >= 2 || time.Now().After(deadline) {
				break
			}
		}
		require.Equal(t, 2, waiting, "both calls wait for scope a")
		require.NoError(t, holder.Rollback(bg))
		wg.Wait()
		require.NoError(t, errors.Join(errs[:]...))
		require.ElementsMatch(t, [][]int64{{4, 4}, {5, 5}}, [][]int64{got[0], got[1]}, "values in the order of the scopes given")
		requireGapless(t, e.valuesByScope(`SELECT scope, value FROM {{app}}.taken`), 1)

		// And under load: 16 clients, random orders of 5 scopes, no retry.
		scopes := []string{"a", "b", "c", "d", "e"}
		var fails atomic.Int32
		var calls atomic.Int32
		deadline := time.Now().Add(500 * time.Millisecond)
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					order := append([]string{}, scopes...)
					rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
					order = order[:2+rand.N(4)]
					err := counter.Retry{Attempts: 1}.InTx(bg, e.Pool, func(tx pgx.Tx) error {
						vs, err := e.c.NextValues(bg, tx, "pair", order)
						if err != nil {
							return err
						}
						for j, s := range order {
							if _, err := tx.Exec(bg, record, s, vs[j]); err != nil {
								return err
							}
						}
						return nil
					})
					calls.Add(1)
					if err != nil {
						fails.Add(1)
						t.Errorf("next_values %v: %v", order, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		require.Zero(t, fails.Load())
		counts := requireGapless(t, e.valuesByScope(`SELECT scope, value FROM {{app}}.taken`), 1)
		t.Logf("%d next_values calls on random orders of 2-5 scopes by 16 clients, no deadlock; per scope %v", calls.Load(), counts)
	})
}

// TestNextValuesHashCollisionDoesNotDeadlock (fixed: next_values locks in
// key order). Since take_value queues a
// scope's waiters on pg_advisory_xact_lock(…, hashtext(scope)), a
// next_values call holds advisory locks in the order of its scopes' text,
// which is not the order of their lock keys when two scopes' hashtext
// collide. hashtext('s14208') = hashtext('s189525'), and 's15' sorts
// between them: next_values([s14208, s15]) locks key K then key(s15);
// next_values([s15, s189525]) locks key(s15) then K. Two such calls
// deadlock, against "a single next_values() call … never deadlocks". The
// test widens the window between the first call's two scopes by holding
// the s14208 counter row with a plain UPDATE (which takes no advisory
// lock). Fix: lock in the order of the lock keys (hashtext, then text).
func TestNextValuesHashCollisionDoesNotDeadlock(t *testing.T) {
	e := newEnv(t)
	e.apply(standalone("pair", 1))
	const x, m, y = "s14208", "s15", "s189525"
	var hx, hy int32
	e.Scalar(&hx, `SELECT hashtext($1)`, x)
	e.Scalar(&hy, `SELECT hashtext($1)`, y)
	require.Equal(t, hx, hy, "the scopes' hashes collide")
	_, err := e.c.NextValues(bg, e.Pool, "pair", []string{x, m, y})
	require.NoError(t, err)

	holder, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	defer holder.Rollback(bg) //nolint:errcheck // committed below
	e.On(holder).Exec(`UPDATE {{schema}}.counter_values SET value = value WHERE counter = 'pair' AND scope = $1`, x)

	waiting := func(event string) {
		t.Helper()
		require.Eventually(t, func() bool {
			var n int
			e.Scalar(&n, `SELECT count(*) FROM pg_stat_activity WHERE wait_event = $1 AND strpos(query, $2) > 0`, event, e.Schema+`".next_values`)
			return n > 0
		}, 5*time.Second, 10*time.Millisecond, "a next_values call waits on %s", event)
	}
	errs := make(chan error, 2)
	call := func(scopes ...string) {
		errs <- counter.Retry{Attempts: 1}.InTx(bg, e.Pool, func(tx pgx.Tx) error {
			_, err := e.c.NextValues(bg, tx, "pair", scopes)
			return err
		})
	}
	go call(x, m) // takes x's advisory lock, then waits for x's row
	waiting("transactionid")
	go call(m, y) // takes m, then waits for y's advisory lock: x's
	waiting("advisory")
	require.NoError(t, holder.Commit(bg))
	for range 2 {
		require.NoError(t, <-errs, "two next_values calls must never deadlock")
	}
}
