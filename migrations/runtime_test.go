package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
)

// drain runs claimers until every task is finished or ctx ends. Each claimer
// claims a random batch in 1..maxBatch, holds the tasks up to hold, then
// completes most and fails a few (which come back for a retry).
// Completions (and fails) wait at gate while it is held; a nil gate never
// holds.
func (r *rt) drain(ctx context.Context, claimers, maxBatch int, hold time.Duration, gate *completionGate) {
	r.T.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, claimers)
	for i := 0; i < claimers; i++ {
		worker := workerName(i)
		r.register(worker)
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, seed))
			idle := 0
			for ctx.Err() == nil && idle < 40 {
				ids, err := claim(ctx, r.Pool, r.Schema, "q", worker, 1+rng.IntN(maxBatch))
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("claim: %w", err)
					}
					return
				}
				if len(ids) == 0 {
					idle++
					time.Sleep(5 * time.Millisecond)
					continue
				}
				idle = 0
				time.Sleep(time.Duration(rng.Int64N(int64(hold) + 1)))
				gate.enter(ctx)
				var done []int64
				for _, id := range ids {
					if rng.IntN(20) == 0 {
						if _, err := r.Pool.Exec(ctx, r.SQL(`SELECT {{schema}}.fail($1, $2, 'flaky')`), id, worker); err != nil && ctx.Err() == nil {
							gate.leave()
							errs <- fmt.Errorf("fail: %w", err)
							return
						}
						continue
					}
					done = append(done, id)
				}
				_, err = r.Pool.Exec(ctx, r.SQL(`SELECT {{schema}}.complete($1, $2)`), done, worker)
				gate.leave()
				if err != nil && ctx.Err() == nil {
					errs <- fmt.Errorf("complete: %w", err)
					return
				}
			}
		}(uint64(i + 1))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(r.T, err)
	}
}

// completionGate holds the drain's completions back on demand. Holding it
// returns only once no claimer is between the gate and the end of its
// completion, so from then on no running task finishes until it is let go:
// a claimer announces itself (passing) before it looks at held, and hold
// sets held before it looks at passing, so with sequentially consistent
// atomics one of the two sees the other.
type completionGate struct {
	held    atomic.Bool
	passing atomic.Int64
}

// enter waits while the gate is held, then counts the caller as passing.
func (g *completionGate) enter(ctx context.Context) {
	if g == nil {
		return
	}
	for {
		g.passing.Add(1)
		if !g.held.Load() || ctx.Err() != nil {
			return
		}
		g.passing.Add(-1)
		time.Sleep(time.Millisecond)
	}
}

// leave ends what enter began.
func (g *completionGate) leave() {
	if g != nil {
		g.passing.Add(-1)
	}
}

// hold stops new completions and waits for those past the gate to end.
func (g *completionGate) hold(ctx context.Context) {
	g.held.Store(true)
	for g.passing.Load() > 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// release lets completions go on.
func (g *completionGate) release() { g.held.Store(false) }

// sampler counts a type's running tasks continuously and records the
// samples with the time they were taken.
type sampler struct {
	mu      sync.Mutex
	samples []sample
	stop    chan struct{}
	done    chan struct{}
}

type sample struct {
	at time.Time
	n  int
}

func (r *rt) sample(taskType string) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			var n int
			err := r.Pool.QueryRow(bg, r.SQL(`SELECT count(*) FROM {{schema}}.tasks WHERE type = $1 AND status = 'running'`), taskType).Scan(&n)
			if err != nil {
				return
			}
			s.mu.Lock()
			s.samples = append(s.samples, sample{time.Now(), n})
			s.mu.Unlock()
		}
	}()
	return s
}

// waitPast returns once a sample taken after t is recorded, or ctx ends.
func (s *sampler) waitPast(ctx context.Context, t time.Time) {
	for ctx.Err() == nil {
		s.mu.Lock()
		n := len(s.samples)
		past := n > 0 && s.samples[n-1].at.After(t)
		s.mu.Unlock()
		if past {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (s *sampler) finish() []sample {
	close(s.stop)
	<-s.done
	return s.samples
}

// Invariant 1 and 2: under 8 concurrent claimers with batches up to 100, a
// limited type never has more running tasks than its limit, and slot usage
// matches the tasks holding the slots.
func TestClaimNeverExceedsLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 2, 50, 51, 101} {
		limit := limit
		t.Run(fmt.Sprintf("limit_%d", limit), func(t *testing.T) {
			t.Parallel()
			// A type name of its own: type locks are keyed by name across the
			// schemas of a database, and an apply elsewhere would hold back this
			// drain's admissions.
			typ := fmt.Sprintf("limited_%d", limit)
			r := newRT(t, state(queueCfg("q"), task(typ, limit), task("free", 0)))
			r.enqueueN(typ, 600)
			r.enqueueN("free", 300)

			s := r.sample(typ)
			// The bound catches a stall, not slowness: at limit 1 the 600
			// tasks run one after another (8 s alone, 20 s once beside the
			// crash tests on 2 cores).
			ctx, cancel := context.WithTimeout(bg, 60*time.Second)
			defer cancel()
			r.drain(ctx, 8, 100, 2*time.Millisecond, nil)
			samples := s.finish()
			require.NoError(t, ctx.Err(), "drain did not finish")

			maxSeen := 0
			for _, sm := range samples {
				require.LessOrEqual(t, sm.n, limit, "running tasks above the limit")
				maxSeen = max(maxSeen, sm.n)
			}
			require.Greater(t, len(samples), 20, "the sampler must have run during the drain")
			require.Greater(t, maxSeen, 0)
			r.RequireInvariants()
			counts := r.StatusCounts()
			require.Equal(t, 900, counts["completed"]+counts["dead_letter"], "every task finished: %v", counts)
		})
	}
}

// Lowering a limit while tasks run: running tasks finish, nothing new of the
// type is admitted until running is below the new limit, and from then on it
// stays within it.
func TestLoweringLimitWhileClaiming(t *testing.T) {
	t.Parallel()
	// Its own type name: type locks are keyed by name across the schemas of
	// a database (see TestClaimNeverExceedsLimit).
	r := newRT(t, state(queueCfg("q"), task("lowered", 50), task("free", 0)))
	r.enqueueN("lowered", 800)
	r.enqueueN("free", 500)

	s := r.sample("lowered")
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	var loweredAt atomic.Int64
	var gate completionGate
	go func() {
		// Let the claimers fill the 50 slots, hold completions so the
		// running tasks outlive the apply, then lower the limit to 7.
		// (Generous: on a loaded machine the claimers may be slow to start.)
		// Once the gate is held no running task finishes, so the count
		// read then is the count the apply meets; if it is 7 or fewer,
		// let the claimers go on and try again.
		deadline := time.Now().Add(20 * time.Second)
		for {
			for r.running("lowered") < 30 && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			gate.hold(ctx)
			if r.running("lowered") > 7 || time.Now().After(deadline) {
				break
			}
			gate.release()
		}
		r.Apply(state(queueCfg("q"), task("lowered", 7), task("free", 0)))
		loweredAt.Store(time.Now().UnixNano())
		// Keep them held until the sampler has counted after the apply.
		s.waitPast(ctx, time.Unix(0, loweredAt.Load()))
		gate.release()
	}()
	r.drain(ctx, 8, 100, 20*time.Millisecond, &gate)
	samples := s.finish()
	require.NoError(t, ctx.Err(), "drain did not finish")
	require.NotZero(t, loweredAt.Load(), "the apply ran")

	lowered := time.Unix(0, loweredAt.Load())
	prev, settled, firstAfter := -1, false, 0
	for _, sm := range samples {
		require.LessOrEqual(t, sm.n, 50)
		if !sm.at.After(lowered) {
			continue
		}
		if settled {
			require.LessOrEqual(t, sm.n, 7, "after draining below the new limit, running stays within it")
			continue
		}
		if prev >= 0 {
			require.LessOrEqual(t, sm.n, prev, "while over the new limit nothing is admitted: running only falls")
		} else {
			firstAfter = sm.n
		}
		prev = sm.n
		settled = sm.n <= 7
	}
	require.True(t, settled, "running fell below the new limit")
	require.Greater(t, firstAfter, 7, "the test must see tasks running above the new limit (draining)")
	r.RequireInvariants()

	// The next apply trims the drained groups; planning again is empty.
	r.Apply(state(queueCfg("q"), task("lowered", 7), task("free", 0)))
	var groups int
	r.Scalar(&groups, `SELECT count(*) FROM {{schema}}.concurrency_slots WHERE task_type = 'lowered'`)
	require.Equal(t, 7, groups)
}

// Invariant 3 and 4: a worker whose backend dies mid-task gets its tasks
// recovered, with their slots released in the same transaction, once its
// heartbeat is stale; when it comes back as a zombie it can neither
// complete, fail, release nor claim.
func TestDeadWorkerRecoveryAndZombie(t *testing.T) {
	t.Parallel()
	// A type name of its own: type locks are per name across schemas, and
	// this test's maintenance, which runs at once, must not take the lock
	// of the "limited" type that parallel tests apply and claim.
	r := newRT(t, state(queueCfg("q"), task("zombie_limited", 3)))
	r.enqueueN("zombie_limited", 5)
	r.register("zombie")
	r.register("leader")

	// The zombie claims on its own connection, which is then terminated.
	conn, err := pgx.ConnectConfig(bg, r.Pool.Config().ConnConfig)
	require.NoError(t, err)
	ids, err := claim(bg, conn, r.Schema, "q", "zombie", 10)
	require.NoError(t, err)
	require.Len(t, ids, 3, "the limit admits 3")
	var pid int
	require.NoError(t, conn.QueryRow(bg, `SELECT pg_backend_pid()`).Scan(&pid))
	r.Exec(`SELECT pg_terminate_backend($1)`, pid)
	conn.Close(bg)

	// Still within worker_timeout (1s): nothing is recovered.
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)
	r.Exec(`SELECT {{schema}}.run_maintenance('leader')`)
	require.Equal(t, 3, r.running("zombie_limited"))

	// Past worker_timeout for the zombie only: its last heartbeat goes back
	// 2s instead of the test waiting. The leader's heartbeat and lease stay
	// current, as they would if it had kept renewing them meanwhile.
	var backdated string
	r.Scalar(&backdated, `UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '2 seconds' WHERE id = 'zombie' RETURNING id`)
	require.Equal(t, "zombie", backdated)
	r.Exec(`SELECT {{schema}}.heartbeat('leader')`)
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`) // the leader renews its lease
	require.True(t, ok)
	r.contactWentOn()
	var report map[string]any
	r.Scalar(&report, `SELECT {{schema}}.run_maintenance('leader')`)
	require.EqualValues(t, 3, report["recovered"])
	require.Equal(t, 0, r.running("zombie_limited"))
	r.RequireInvariants()
	var used, zombieHeld int
	r.Scalar(&used, `SELECT sum(used) FROM {{schema}}.concurrency_slots WHERE task_type = 'zombie_limited'`)
	r.Scalar(&zombieHeld, `SELECT count(*) FROM {{schema}}.tasks WHERE worker_id = 'zombie' AND slot_group IS NOT NULL`)
	require.Zero(t, zombieHeld, "recovery took the dead worker's units")
	require.Equal(t, 3, used, "and passed them on to pending tasks (checkSlotAccounting: used = holders)")
	attempts := pgseqtest.Column[int](r.DB, `SELECT attempts FROM {{schema}}.tasks WHERE id = ANY($1) AND status = 'pending'`, ids)
	require.Equal(t, []int{1, 1, 1}, attempts, "recovered tasks are pending again, their attempt counted")

	// The zombie comes back.
	r.Scalar(&ok, `SELECT {{schema}}.heartbeat('zombie')`)
	require.False(t, ok, "a worker declared dead is told to stop")
	var n int
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'zombie')`, ids)
	require.Zero(t, n, "a zombie completes nothing")
	var status *string
	r.Scalar(&status, `SELECT {{schema}}.fail($1, 'zombie', 'late')`, ids[0])
	require.Nil(t, status, "a zombie fails nothing")
	r.Scalar(&n, `SELECT {{schema}}.release($1, 'zombie')`, ids)
	require.Zero(t, n)
	_, err = claim(bg, r.Pool, r.Schema, "q", "zombie", 1)
	requireCode(t, err, "PS002")
	r.RequireInvariants()

	// Another worker claims the recovered tasks; the zombie's late calls
	// still change nothing.
	r.register("w2")
	ids2, err := claim(bg, r.Pool, r.Schema, "q", "w2", 10)
	require.NoError(t, err)
	require.Len(t, ids2, 3)
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'zombie')`, ids2)
	require.Zero(t, n)
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w2')`, ids2)
	require.Equal(t, 3, n)
	r.Scalar(&n, `SELECT {{schema}}.complete($1, 'w2')`, ids2)
	require.Zero(t, n, "completing twice releases once")
	r.RequireInvariants()
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "want SQLSTATE %s, got %v", code, err)
	require.Equal(t, code, pgErr.Code, pgErr.Message)
}

// Exactly one leader at any moment among 10 contenders, including when the
// leader dies (stops renewing): grants to different workers never overlap.
func TestExactlyOneLeader(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q")))
	type grant struct {
		worker      string
		from, until time.Time
	}
	var mu sync.Mutex
	var grants []grant
	ctx, cancel := context.WithTimeout(bg, 4*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		w := workerName(i)
		r.register(w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				var won bool
				var from, until time.Time
				err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
					if err := tx.QueryRow(ctx, r.SQL(`SELECT {{schema}}.elect_leader($1), now()`), w).Scan(&won, &from); err != nil {
						return err
					}
					if won {
						return tx.QueryRow(ctx, r.SQL(`SELECT lease_until FROM {{schema}}.leader`)).Scan(&until)
					}
					return nil
				})
				if err != nil {
					return
				}
				if won {
					mu.Lock()
					grants = append(grants, grant{w, from, until})
					mu.Unlock()
					// A leader that won twice dies: it stops renewing.
					mu.Lock()
					wins := 0
					for _, g := range grants {
						if g.worker == w {
							wins++
						}
					}
					mu.Unlock()
					if wins >= 2 {
						return
					}
				}
				time.Sleep(time.Duration(rand.IntN(50)) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	require.GreaterOrEqual(t, len(grants), 3, "leadership changed hands after leaders died")
	leaders := map[string]bool{}
	for i, a := range grants {
		leaders[a.worker] = true
		for _, b := range grants[i+1:] {
			if a.worker == b.worker {
				continue
			}
			overlap := a.from.Before(b.until) && b.from.Before(a.until)
			require.False(t, overlap, "two leaders at once: %v and %v", a, b)
		}
	}
	require.GreaterOrEqual(t, len(leaders), 2)
}

// Idempotent enqueue under 16 concurrent callers with the same key gives one
// task and the same id to everyone.
func TestIdempotentEnqueueUnderConcurrency(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("email:send", 0)))
	for round := 0; round < 5; round++ {
		key := fmt.Sprintf("order-%d", round)
		ids := make([]int64, 16)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				err := r.Pool.QueryRow(bg, r.SQL(`SELECT {{schema}}.enqueue('email:send', '{"to":"a@b"}', $1)`), key).Scan(&ids[i])
				if err != nil {
					t.Error(err)
				}
			}(i)
		}
		close(start)
		wg.Wait()
		for _, id := range ids {
			require.Equal(t, ids[0], id)
		}
		var n int
		r.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks WHERE idempotency_key = $1`, key)
		require.Equal(t, 1, n)
	}

	// Batch form: repeated keys in one batch and keys used before.
	rows, err := r.Pool.Query(bg, r.SQL(`SELECT * FROM {{schema}}.enqueue_batch($1, NULL, $2)`),
		[]string{"email:send", "email:send", "email:send", "email:send"},
		[]*string{ptr("order-0"), ptr("new-1"), nil, ptr("new-1")})
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Len(t, got, 4)
	var first int64
	r.Scalar(&first, `SELECT id FROM {{schema}}.tasks WHERE idempotency_key = 'order-0'`)
	require.Equal(t, first, got[0], "a key used before returns the existing task")
	require.Equal(t, got[1], got[3], "a key repeated in the batch gives one task")
	require.NotEqual(t, got[1], got[2])

	_, err = r.Pool.Exec(bg, r.SQL(`SELECT {{schema}}.enqueue('no:such:type')`))
	requireCode(t, err, "PS001")
}

func ptr[T any](v T) *T { return &v }

// Retries follow the queue's backoff; a task is dead-lettered after
// max_retries retries; retry=false fails it for good.
func TestRetriesBackoffAndDeadLetter(t *testing.T) {
	t.Parallel()
	q := queueCfg("q", func(q *catalog.Queue) {
		q.MaxRetries = 2
		q.Backoff = catalog.Backoff{Initial: catalog.Duration(2e9), Max: catalog.Duration(5e9), Factor: 2, Jitter: 0}
	})
	one := 1
	r := newRT(t, state(q, task("flaky", 0), catalog.TaskType{Name: "once", Queue: "q", MaxRetries: &one}))
	r.register("w")
	var id int64
	r.Scalar(&id, `SELECT {{schema}}.enqueue('flaky')`)

	failOnce := func(wantStatus string) float64 {
		t.Helper()
		r.Exec(`UPDATE {{schema}}.tasks SET run_at = now() WHERE id = $1`, id) // due again now
		ids, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
		require.NoError(t, err)
		require.Equal(t, []int64{id}, ids)
		var status string
		r.Scalar(&status, `SELECT {{schema}}.fail($1, 'w', 'boom')`, id)
		require.Equal(t, wantStatus, status)
		var delay float64
		r.Scalar(&delay, `SELECT extract(epoch FROM run_at - updated_at)::float8 FROM {{schema}}.tasks WHERE id = $1`, id)
		return delay
	}
	require.InDelta(t, 2.0, failOnce("pending"), 0.001, "first retry after initial")
	require.InDelta(t, 4.0, failOnce("pending"), 0.001, "then initial·factor")
	failOnce("dead_letter") // the third failure: 2 retries used up
	var lastErr string
	var attempts int
	require.NoError(t, r.Pool.QueryRow(bg, r.SQL(`SELECT last_error, attempts FROM {{schema}}.tasks WHERE id = $1`), id).Scan(&lastErr, &attempts))
	require.Equal(t, "boom", lastErr)
	require.Equal(t, 3, attempts)

	// The cap: initial·factor^n never exceeds max.
	var capped float64
	r.Scalar(&capped, `SELECT extract(epoch FROM {{schema}}.backoff_delay(q, 10))::float8 FROM {{schema}}.queues q`)
	require.InDelta(t, 5.0, capped, 0.001)

	// A task type's own max_retries (1) wins over the queue's (2).
	r.Scalar(&id, `SELECT {{schema}}.enqueue('once')`)
	failOnce("pending")
	failOnce("dead_letter")

	// retry = false: failed at once (for example no handler).
	r.Scalar(&id, `SELECT {{schema}}.enqueue('flaky')`)
	_, err := claim(bg, r.Pool, r.Schema, "q", "w", 1)
	require.NoError(t, err)
	var status string
	r.Scalar(&status, `SELECT {{schema}}.fail($1, 'w', 'no handler for flaky', false)`, id)
	require.Equal(t, "failed", status)
	r.RequireInvariants()
}

// enqueue_batch takes the units of every limited type of a batch at once
// (take_units_of, migration 024): each due keyless task of a limited type
// is inserted open with a unit while its type has one free, in input
// order, else waiting in its lane; a draining type's tasks all wait;
// unlimited tasks are open without a unit; and every group's used counts
// exactly the tasks holding its units.
//
// With an idempotency key in the batch the units are taken after the
// insert (the call never waits for a key while holding a unit), for every
// type at once too (migration 025), with the same outcome.
func TestEnqueueBatchTakesUnitsOfEveryTypeAtOnce(t *testing.T) {
	t.Parallel()
	t.Run("without keys", func(t *testing.T) {
		t.Parallel()
		testEnqueueBatchTakesUnits(t, false)
	})
	t.Run("with idempotency keys", func(t *testing.T) {
		t.Parallel()
		testEnqueueBatchTakesUnits(t, true)
	})
}

func testEnqueueBatchTakesUnits(t *testing.T, keyed bool) {
	r := newRT(t, state(queueCfg("q"), task("a", 3), task("b", 60), task("c", 0), task("d", 2)))
	r.Exec(`UPDATE {{schema}}.task_types SET draining = true WHERE name = 'd'`)
	var types []string
	for i := 0; i < 5; i++ {
		types = append(types, "a", "b", "c", "d")
	}
	for i := 0; i < 40; i++ {
		types = append(types, "b")
	}
	var keys []*string
	if keyed {
		keys = make([]*string, len(types))
		for i := range keys {
			if i%3 != 1 { // some tasks keyed, some not
				keys[i] = ptr(fmt.Sprintf("key-%d", i))
			}
		}
	}
	rows, err := r.Pool.Query(bg, r.SQL(`SELECT * FROM {{schema}}.enqueue_batch($1, idempotency_keys => $2)`), types, keys)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Len(t, ids, len(types))

	gates := func(typ string) (open, waiting []int64) {
		t.Helper()
		rows, err := r.Pool.Query(bg, r.SQL(`SELECT id, gate::text, slot_group IS NOT NULL FROM {{schema}}.tasks WHERE type = $1 ORDER BY id`), typ)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var id int64
			var gate string
			var holds bool
			require.NoError(t, rows.Scan(&id, &gate, &holds))
			switch {
			case gate == "open" && (holds || typ == "c"):
				open = append(open, id)
			case gate == "waiting" && !holds:
				waiting = append(waiting, id)
			default:
				t.Fatalf("task %d of %s: gate %s, holds a unit: %v", id, typ, gate, holds)
			}
		}
		require.NoError(t, rows.Err())
		return open, waiting
	}
	open, waiting := gates("a")
	require.Len(t, open, 3, "a: as many open as its limit")
	require.Len(t, waiting, 2)
	require.Less(t, open[2], waiting[0], "a: the first tasks in input order take the units")
	open, waiting = gates("b")
	require.Len(t, open, 45, "b: every task, the limit is not reached")
	require.Empty(t, waiting)
	open, _ = gates("c")
	require.Len(t, open, 5, "c: unlimited")
	open, waiting = gates("d")
	require.Empty(t, open, "d: draining, no unit taken")
	require.Len(t, waiting, 5)

	// Every group lends exactly the units its holders hold.
	var bad int
	r.Scalar(&bad, `SELECT count(*) FROM {{schema}}.concurrency_slots s
		WHERE s.used <> (SELECT count(*) FROM {{schema}}.tasks t WHERE t.type = s.task_type AND t.slot_group = s.slot_group)
		   OR s.used > s.capacity`)
	require.Zero(t, bad, "slot groups whose used is not their holders")
}

// enqueue_batch writes a batch's tasks without idempotency keys in input
// order, the order claims take them in (migration 025), so that a claim
// of a batch over many types reads a few heap pages, not one per task;
// the keyed ones come first, in bytewise (type, key) order (two batches
// inserting the same keys in opposite orders would deadlock).
func TestEnqueueBatchWritesKeylessTasksInInputOrder(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("a", 0), task("b", 0), task("c", 0), task("d", 2)))
	types := []string{"c", "b", "a", "c", "b", "a", "b", "c", "a", "b"}
	keys := []*string{nil, nil, ptr("k2"), nil, nil, ptr("k1"), ptr("k0"), nil, nil, nil}
	rows, err := r.Pool.Query(bg, r.SQL(`SELECT * FROM {{schema}}.enqueue_batch($1, idempotency_keys => $2)`), types, keys)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Len(t, ids, len(types))
	for i := 1; i < len(ids); i++ {
		require.Less(t, ids[i-1], ids[i], "ids are drawn in input order")
	}

	// The table's physical order (one batch into an empty table: the
	// order the rows were written in).
	rows, err = r.Pool.Query(bg, r.SQL(`SELECT id, type || coalesce(':' || idempotency_key, '') FROM {{schema}}.tasks ORDER BY ctid`))
	require.NoError(t, err)
	type written struct {
		ID   int64
		Name string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[written])
	require.NoError(t, err)
	want := []written{
		{ids[5], "a:k1"}, {ids[2], "a:k2"}, {ids[6], "b:k0"}, // keyed: by (type, key)
		{ids[0], "c"}, {ids[1], "b"}, {ids[3], "c"}, {ids[4], "b"}, {ids[7], "c"}, {ids[8], "a"}, {ids[9], "b"}, // keyless: input order
	}
	require.Equal(t, want, got)

	// Without keys, a limited type's units are taken before the insert,
	// so its tasks are written once, in input order too (the third d
	// waits in its lane).
	types = []string{"d", "a", "d", "c", "d", "b"}
	rows, err = r.Pool.Query(bg, r.SQL(`SELECT * FROM {{schema}}.enqueue_batch($1)`), types)
	require.NoError(t, err)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	var order []int64
	r.Scalar(&order, `SELECT array_agg(id ORDER BY ctid) FROM {{schema}}.tasks WHERE id = ANY ($1)`, ids)
	require.Equal(t, ids, order)
	r.RequireInvariants()
}

// enqueue_batch looks each distinct type of a batch up once (migration
// 027) and refuses a batch naming a type that is not declared, naming the
// first one in input order, or a task of a partitioned type without a
// key; nothing of a refused batch is written. A batch of unlimited types
// takes no unit; one of limited types takes its units.
func TestEnqueueBatchLooksUpItsTypes(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("free", 0), task("limited", 2), partitioned("keyed", 0, 1, "")))
	for _, tt := range []struct {
		name    string
		types   []*string
		keys    []*string
		code    string
		message string
	}{
		{"the first unknown type in input order", []*string{ptr("free"), ptr("nope2"), ptr("limited"), ptr("nope1"), ptr("nope2")}, nil,
			"PS001", `unknown task type "nope2"`},
		{"a NULL type", []*string{ptr("free"), nil}, nil, "PS001", `unknown task type "<NULL>"`},
		{"a partitioned type's task without a key", []*string{ptr("free"), ptr("keyed"), ptr("keyed")}, []*string{nil, ptr("acme"), nil},
			"PS032", `task 3 (type "keyed") has no partition key`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Pool.Exec(bg, r.SQL(`SELECT count(*) FROM {{schema}}.enqueue_batch($1, partition_keys => $2)`), tt.types, tt.keys)
			requireCode(t, err, tt.code)
			require.ErrorContains(t, err, tt.message)
			var n int
			r.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks`)
			require.Zero(t, n, "a refused batch writes nothing")
		})
	}

	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['free', 'free', 'keyed'], partition_keys => ARRAY[NULL, NULL, 'acme'])`)
	var used int
	r.Scalar(&used, `SELECT coalesce(sum(used), 0) FROM {{schema}}.concurrency_slots`)
	require.Zero(t, used, "a batch without limited types takes no unit")
	r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['free', 'limited', 'limited', 'limited'])`)
	r.Scalar(&used, `SELECT coalesce(sum(used), 0) FROM {{schema}}.concurrency_slots WHERE task_type = 'limited'`)
	require.Equal(t, 2, used, "the limited type's units are taken, the third task waits")
	r.RequireInvariants()
}

// enqueue_batch's step 3a (migration 035), the one-statement insert of a
// call whose types have no partition block and whose rows have no
// idempotency key, writes what its step 4 writes: the same batch
// (unlimited and limited types, payloads, priorities and due times given
// or not, due or in the future, more due tasks of the limited type than
// it has units, a partition key given for an unpartitioned type) enqueued
// through 3a and, with a task of a partitioned type appended, through
// step 4, each from the same state in one transaction (one now(); the
// first rolled back to a savepoint), gives the same rows, column by
// column, ids apart, each path's ids drawn and its rows written in input
// order. A call with an idempotency key or a partitioned type does not
// take 3a.
func TestEnqueueBatchFastPathInsertsWhatTheGeneralStepsDo(t *testing.T) {
	t.Parallel()
	plain := task("plain", 0)
	plain.Priority = 5
	r := newRT(t, state(queueCfg("q"), plain, task("other", 0), task("lim", 3), partitioned("part", 0, 2, "")))
	types := []string{"plain", "lim", "other", "lim", "plain", "lim", "lim", "plain", "lim", "other"}
	payloads := []*string{ptr(`{"a": 1}`), nil, ptr(`null`), ptr(`[1, 2]`), nil, ptr(`{}`), nil, nil, nil, nil}
	priorities := []*int{nil, ptr(3), ptr(-1), nil, nil, ptr(9), nil, nil, ptr(1), nil}
	runAts := []*string{nil, ptr("2000-01-01T00:00:00Z"), ptr("2999-01-01T00:00:00Z"), nil, ptr("2999-06-01T00:00:00Z"),
		ptr("2999-06-01T00:00:00Z"), nil, nil, nil, nil}
	pkeys := []*string{nil, ptr("ignored"), nil, nil, nil, nil, nil, nil, nil, nil}
	const call = `SELECT * FROM {{schema}}.enqueue_batch($1, $2::jsonb[], NULL, $3, $4::timestamptz[], $5)`

	tx, err := r.Pool.Begin(bg)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(bg) }()
	// enqueue returns the rows of the batch's first len(types) tasks, as
	// JSON without their ids.
	enqueue := func(types []string, payloads []*string, priorities []*int, runAts, pkeys []*string) []string {
		rows, err := tx.Query(bg, r.SQL(call), types, payloads, priorities, runAts, pkeys)
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(t, err)
		require.Len(t, ids, len(types))
		for i := 1; i < len(ids); i++ {
			require.Less(t, ids[i-1], ids[i], "ids are drawn in input order")
		}
		var order []int64
		require.NoError(t, tx.QueryRow(bg, r.SQL(`SELECT array_agg(id ORDER BY ctid) FROM {{schema}}.tasks WHERE id = ANY ($1)`), ids).Scan(&order))
		require.Equal(t, ids, order, "rows are written in input order")
		var got []string
		require.NoError(t, tx.QueryRow(bg, r.SQL(`SELECT array_agg((to_jsonb(t) - 'id')::text ORDER BY x.n)
			FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, n) JOIN {{schema}}.tasks t ON t.id = x.id`), ids).Scan(&got))
		return got
	}
	_, err = tx.Exec(bg, "SAVEPOINT before")
	require.NoError(t, err)
	fast := enqueue(types, payloads, priorities, runAts, pkeys)
	_, err = tx.Exec(bg, "ROLLBACK TO SAVEPOINT before")
	require.NoError(t, err)
	general := enqueue(append(types, "part"), append(payloads, nil), append(priorities, nil), append(runAts, nil), append(pkeys, ptr("k")))
	for i := range types {
		require.Equal(t, general[i], fast[i], "task %d of the batch (%s)", i, types[i])
	}
	require.Contains(t, fast[8], `"gate": "waiting"`, "the fourth due task of lim finds no unit")
	require.NoError(t, tx.Commit(bg))
	r.RequireInvariants()

	// Which calls take 3a: its statement is the only one inserting from a
	// materialized input.
	for _, c := range []struct {
		name string
		sql  string
		fast bool
	}{
		{"unlimited types", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['plain', 'other'])`, true},
		{"a limited type", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['plain', 'lim'])`, true},
		{"idempotency keys all NULL", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['plain'], idempotency_keys => ARRAY[NULL::text])`, true},
		{"an idempotency key", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['plain', 'plain'], idempotency_keys => ARRAY[NULL, 'k'])`, false},
		{"a partitioned type", `SELECT count(*) FROM {{schema}}.enqueue_batch(ARRAY['plain', 'part'], partition_keys => ARRAY[NULL, 'k'])`, false},
	} {
		plans, _, _ := r.plansOf(t, c.sql)
		took := strings.Contains(strings.Join(plans, "\n"), "WITH input AS MATERIALIZED")
		require.Equal(t, c.fast, took, "%s: step 3a taken", c.name)
	}
}
