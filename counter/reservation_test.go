package counter_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/counter"
)

// TestReservations walks the two-phase allocation through its cases:
// concurrent reserves with one key, repeated commits, an abandoned
// reservation, a rolled-back commit, expiry, and the reaper's callback.
func TestReservations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tickets := standalone("ticket", 1)
	tickets.IdempotencyWindow = catalog.Duration(time.Second)
	e.apply(tickets)
	c := e.c
	pool := e.ownPool(18)

	// 16 concurrent reserves with one key: one reservation. Half of them
	// keep their transaction open a moment, so the others' inserts meet
	// an uncommitted row.
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		ids   [16]int64
		errs  [16]error
	)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				ids[i], errs[i] = c.Reserve(bg, pool, "ticket", "", "req-1")
				return
			}
			errs[i] = pgx.BeginFunc(bg, pool, func(tx pgx.Tx) error {
				var err error
				ids[i], err = c.Reserve(bg, tx, "ticket", "", "req-1")
				time.Sleep(20 * time.Millisecond)
				return err
			})
		}()
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs[:]...))
	for _, id := range ids {
		require.Equal(t, ids[0], id, "every call returns the same reservation")
	}
	var rows int
	e.Scalar(&rows, `SELECT count(*) FROM {{schema}}.reservations WHERE idempotency_key = 'req-1' AND status = 'pending' AND number IS NULL`)
	require.Equal(t, 1, rows, "one pending reservation, no number yet")
	req1 := ids[0]

	// Commit, in the transaction that records the entity; again: same number.
	e.Exec(`CREATE TABLE {{app}}.entities (id text PRIMARY KEY, idempotency_key text UNIQUE, number bigint)`)
	create := e.SQL(`INSERT INTO {{app}}.entities VALUES ($1, $2, $3)`)
	var n1 int64
	require.NoError(t, pgx.BeginFunc(bg, e.Pool, func(tx pgx.Tx) error {
		var err error
		if n1, err = c.CommitReservation(bg, tx, req1, "E1"); err != nil {
			return err
		}
		_, err = tx.Exec(bg, create, "E1", "req-1", n1)
		return err
	}))
	require.EqualValues(t, 1, n1)
	again, err := c.CommitReservation(bg, e.Pool, req1, "E1")
	require.NoError(t, err)
	require.Equal(t, n1, again, "committing twice returns the same number")
	_, err = c.CommitReservation(bg, e.Pool, req1, "E-other")
	require.ErrorIs(t, err, counter.ErrCommittedElsewhere)
	id, err := c.Reserve(bg, e.Pool, "ticket", "", "req-1")
	require.NoError(t, err)
	require.Equal(t, req1, id, "the key still names its reservation")
	_, err = c.Reserve(bg, e.Pool, "ticket", "other-scope", "req-1")
	require.ErrorIs(t, err, counter.ErrKeyOtherScope, "a key names one reservation, in one scope")

	// Abandoned before commit: burns no number.
	req2, err := c.Reserve(bg, e.Pool, "ticket", "", "req-2")
	require.NoError(t, err)
	req3, err := c.Reserve(bg, e.Pool, "ticket", "", "req-3")
	require.NoError(t, err)
	n3, err := c.CommitReservation(bg, e.Pool, req3, "E3")
	require.NoError(t, err)
	require.EqualValues(t, 2, n3, "the abandoned req-2 took no number")

	// A commit rolled back gives its number back and leaves the
	// reservation pending.
	req4, err := c.Reserve(bg, e.Pool, "ticket", "", "req-4")
	require.NoError(t, err)
	tx, err := e.Pool.Begin(bg)
	require.NoError(t, err)
	n4, err := c.CommitReservation(bg, tx, req4, "E4")
	require.NoError(t, err)
	require.EqualValues(t, 3, n4)
	require.NoError(t, tx.Rollback(bg))

	// req-5's entity was created, but the process died before phase two
	// committed; req-6's entity never came to be; req-7's store is down
	// during the first pass.
	req5, err := c.Reserve(bg, e.Pool, "ticket", "", "req-5")
	require.NoError(t, err)
	e.Exec(`INSERT INTO {{app}}.entities (id, idempotency_key) VALUES ('E5', 'req-5')`)
	_, err = c.Reserve(bg, e.Pool, "ticket", "", "req-6")
	require.NoError(t, err)
	_, err = c.Reserve(bg, e.Pool, "ticket", "", "req-7")
	require.NoError(t, err)

	var storeDown = true
	exists := func(ctx context.Context, r counter.Reservation) (string, bool, error) {
		if r.IdempotencyKey == "req-7" && storeDown {
			return "", false, errors.New("entity store unavailable")
		}
		var id string
		err := e.Pool.QueryRow(ctx, e.SQL(`SELECT id FROM {{app}}.entities WHERE idempotency_key = $1`), r.IdempotencyKey).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", false, nil
		}
		return id, err == nil, err
	}
	reaper, err := counter.NewReaper(counter.ReaperConfig{DB: e.Pool, Client: c, Exists: exists})
	require.NoError(t, err)

	// Inside the window nothing expires.
	plain, err := counter.NewReaper(counter.ReaperConfig{DB: e.Pool, Client: c})
	require.NoError(t, err)
	res, err := plain.RunOnce(bg)
	require.NoError(t, err)
	require.Equal(t, counter.ReapResult{}, res)

	// Past the 1s idempotency_window: move the ticket reservations' clock
	// back 2s rather than wait (the reaper and reap_reservations compare
	// created_at with now()).
	var backdated int
	e.Scalar(&backdated, `WITH b AS (
		UPDATE {{schema}}.reservations
		SET created_at = created_at - interval '2 seconds', settled_at = settled_at - interval '2 seconds'
		WHERE counter = 'ticket' RETURNING 1)
		SELECT count(*) FROM b`)
	require.Equal(t, 7, backdated, "req-1 to req-7")

	// First pass: req-5 is committed for E5 with the next number; the
	// store failed for req-7, so nothing is failed in this pass.
	res, err = reaper.RunOnce(bg)
	require.ErrorContains(t, err, "entity store unavailable")
	require.Equal(t, counter.ReapResult{Checked: 5, Committed: 1}, res)
	var n5 int64
	e.Scalar(&n5, `SELECT number FROM {{schema}}.reservations WHERE id = $1 AND status = 'committed' AND entity_id = 'E5'`, req5)
	require.EqualValues(t, 3, n5, "gapless: req-4's rolled-back number is reused")

	// Second pass: req-2, req-4, req-6 and req-7 expired.
	storeDown = false
	res, err = reaper.RunOnce(bg)
	require.NoError(t, err)
	require.Equal(t, counter.ReapResult{Checked: 4, Failed: 4}, res)

	_, err = c.CommitReservation(bg, e.Pool, req2, "E2")
	require.ErrorIs(t, err, counter.ErrReservationExpired)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "PS027", pgErr.Code)
	t.Logf("commit after expiry: %v", err)
	_, err = c.CommitReservation(bg, e.Pool, req4, "E4")
	require.ErrorIs(t, err, counter.ErrReservationExpired)

	// The expired key keeps naming its failed reservation: a new attempt
	// needs a new key, and gets the next number.
	id, err = c.Reserve(bg, e.Pool, "ticket", "", "req-2")
	require.NoError(t, err)
	require.Equal(t, req2, id)
	req8, err := c.Reserve(bg, e.Pool, "ticket", "", "req-8")
	require.NoError(t, err)
	n8, err := c.CommitReservation(bg, e.Pool, req8, "E8")
	require.NoError(t, err)
	require.EqualValues(t, 4, n8)

	// Committed numbers are gapless: 1, 2, 3, 4.
	requireGapless(t, e.valuesByScope(`SELECT scope, number FROM {{schema}}.reservations WHERE status = 'committed'`), 1)
	_, err = c.CommitReservation(bg, e.Pool, 1<<40, "E")
	require.ErrorIs(t, err, counter.ErrUnknownReservation)

	// Reserve needs a counter with an idempotency_window.
	_, err = c.Reserve(bg, e.Pool, "nope", "", "k")
	require.ErrorIs(t, err, counter.ErrUnknownCounter)
}

func TestReserveNeedsTwoPhase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply(standalone("plain", 1))
	_, err := e.c.Reserve(bg, e.Pool, "plain", "", "k")
	require.ErrorIs(t, err, counter.ErrNoTwoPhase)
	require.ErrorContains(t, err, "idempotency_window")
}

// TestReaperRun: Run passes at once and every Interval, reports through
// OnPass, and returns nil when its context ends.
func TestReaperRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.apply()
	passes := make(chan error, 10)
	r, err := counter.NewReaper(counter.ReaperConfig{
		DB: e.Pool, Client: e.c, Interval: 20 * time.Millisecond,
		OnPass: func(_ counter.ReapResult, err error) {
			select {
			case passes <- err:
			default:
			}
		},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	for range 3 {
		require.NoError(t, <-passes)
	}
	cancel()
	require.NoError(t, <-done)

	_, err = counter.NewReaper(counter.ReaperConfig{})
	require.Error(t, err)
}
