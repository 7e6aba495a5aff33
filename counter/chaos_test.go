package counter_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// chaos runs transactions from many clients for a while: most commit, some
// roll back, and some have their backend terminated from another
// connection while the transaction is open after it took its number.
// Outcomes follow a fixed schedule over the run's transaction sequence (not
// chance), and the run goes on past its duration until it has made
// minChaosTx transactions, so every run rolls back and terminates some.
type chaos struct {
	workers  int
	duration time.Duration
	scopes   int
	rollback float64 // share of transactions rolled back
	kill     float64 // share of transactions whose backend is terminated
}

// minChaosTx is the fewest transactions a chaos run makes, whatever its
// duration: enough for the scheduled rollbacks and terminations to happen
// on a slow or loaded machine.
const minChaosTx = 200

// chaosResult is what the clients saw.
type chaosResult struct {
	committed  map[string]int // per scope
	rolledBack int
	killed     int
}

func (r chaosResult) total() int {
	n := 0
	for _, c := range r.committed {
		n += c
	}
	return n
}

// run calls body in a transaction per iteration, on pool; killer is
// another pool to terminate victims from.
func (c chaos) run(t *testing.T, pool, killer *pgxpool.Pool, body func(ctx context.Context, tx pgx.Tx, scope string) error) chaosResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, c.duration+30*time.Second)
	defer cancel()
	deadline := time.Now().Add(c.duration)
	var (
		mu   sync.Mutex
		res  = chaosResult{committed: map[string]int{}}
		errs []error
		wg   sync.WaitGroup
		seq  atomic.Int64
	)
	for w := 0; w < c.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := seq.Add(1)
				if n > minChaosTx && !time.Now().Before(deadline) {
					return
				}
				scope := strconv.Itoa(rand.N(c.scopes) + 1)
				outcome, err := c.one(ctx, pool, killer, scope, c.outcome(n), body)
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, err)
				case outcome == "commit":
					res.committed[scope]++
				case outcome == "rollback":
					res.rolledBack++
				case outcome == "killed":
					res.killed++
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	return res
}

// outcome is what the n-th transaction (1-based) of a run does: about a
// share kill of them are terminated and a share rollback rolled back, spread
// evenly over the sequence.
func (c chaos) outcome(n int64) string {
	switch {
	case c.kill > 0 && n%int64(1/c.kill) == 0:
		return "killed"
	case c.rollback > 0 && n%int64(1/c.rollback) == 1:
		return "rollback"
	}
	return "commit"
}

func (c chaos) one(ctx context.Context, pool, killer *pgxpool.Pool, scope, outcome string, body func(context.Context, pgx.Tx, string) error) (string, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	if err := body(ctx, tx, scope); err != nil {
		return "", fmt.Errorf("scope %s: %w", scope, err)
	}
	switch outcome {
	case "killed":
		// The transaction is open and holds its number: terminate its
		// backend from another connection and wait until it is gone.
		pid := tx.Conn().PgConn().PID()
		var ok bool
		if err := killer.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, pid).Scan(&ok); err != nil {
			return "", fmt.Errorf("terminating backend %d: %w", pid, err)
		}
		if !ok {
			return "", fmt.Errorf("backend %d did not end", pid)
		}
		if err := tx.Commit(ctx); err == nil {
			return "", fmt.Errorf("commit after terminating backend %d succeeded", pid)
		}
		return "killed", nil
	case "rollback":
		return "rollback", tx.Rollback(ctx)
	}
	return "commit", tx.Commit(ctx)
}

// TestGaplessUnderChaos: 16 clients insert into a table with an attached
// counter (and take numbers with next_value), across 1, 10 and 1,000
// scopes; about 10% of the transactions roll back and about 3% have their
// backend terminated while open. Per scope, the committed values are
// exactly start..start+N-1, N is what the clients saw commit, and the
// counter row agrees.
func TestGaplessUnderChaos(t *testing.T) {
	t.Parallel()
	const workers = 16
	for _, scopes := range []int{1, 10, 1000} {
		c := chaos{workers: workers, duration: time.Second, scopes: scopes, rollback: 0.10, kill: 0.03}

		t.Run(fmt.Sprintf("attached counter_table %d scopes", scopes), func(t *testing.T) {
			e := newEnv(t)
			e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint, title text)`)
			e.apply(e.attached("task_index", "tasks", 1, catalog.StrategyCounterTable))
			pool := e.ownPool(workers + 2)
			insert := e.SQL(`INSERT INTO {{app}}.tasks (project_id, title) VALUES ($1, 'chaos')`)
			res := c.run(t, pool, e.Pool, func(ctx context.Context, tx pgx.Tx, scope string) error {
				_, err := tx.Exec(ctx, insert, scope)
				return err
			})
			e.checkChaos(res, `SELECT project_id::text, index FROM {{app}}.tasks`, "task_index", 1)
		})

		t.Run(fmt.Sprintf("next_value %d scopes", scopes), func(t *testing.T) {
			e := newEnv(t)
			e.Exec(`CREATE TABLE {{app}}.ledger (scope text NOT NULL, value bigint NOT NULL)`)
			e.apply(standalone("entry_number", 1000))
			pool := e.ownPool(workers + 2)
			insert := e.SQL(`INSERT INTO {{app}}.ledger (scope, value) VALUES ($1, $2)`)
			res := c.run(t, pool, e.Pool, func(ctx context.Context, tx pgx.Tx, scope string) error {
				v, err := e.c.NextValue(ctx, tx, "entry_number", scope)
				if err != nil {
					return err
				}
				_, err = tx.Exec(ctx, insert, scope, v)
				return err
			})
			e.checkChaos(res, `SELECT scope, value FROM {{app}}.ledger`, "entry_number", 1000)
		})
	}

	t.Run("attached advisory_lock 10 scopes", func(t *testing.T) {
		c := chaos{workers: workers, duration: time.Second, scopes: 10, rollback: 0.10, kill: 0.03}
		e := newEnv(t)
		e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint, title text)`)
		e.apply(e.attached("task_index", "tasks", 1, catalog.StrategyAdvisoryLock))
		pool := e.ownPool(workers + 2)
		insert := e.SQL(`INSERT INTO {{app}}.tasks (project_id, title) VALUES ($1, 'chaos')`)
		res := c.run(t, pool, e.Pool, func(ctx context.Context, tx pgx.Tx, scope string) error {
			_, err := tx.Exec(ctx, insert, scope)
			return err
		})
		e.checkChaos(res, `SELECT project_id::text, index FROM {{app}}.tasks`, "", 1)
	})
}

// checkChaos requires gapless values per scope, as many as the clients saw
// commit, and (for a counter with counter rows) counter rows that agree.
func (e *env) checkChaos(res chaosResult, valuesSQL, counterName string, start int64) {
	t := e.T
	t.Helper()
	got := requireGapless(t, e.valuesByScope(valuesSQL), start)
	require.Equal(t, res.committed, got, "committed values per scope = commits the clients saw")
	if counterName != "" {
		cv := e.counterValues(counterName)
		for scope, n := range got {
			require.Equal(t, start+int64(n)-1, cv[scope], "counter row of scope %s", scope)
		}
		for scope := range cv {
			require.Contains(t, got, scope, "a counter row without committed values")
		}
	}
	total := res.total() + res.rolledBack + res.killed
	t.Logf("%d transactions: %d committed in %d scopes, %d rolled back, %d backends terminated",
		total, res.total(), len(got), res.rolledBack, res.killed)
	require.Positive(t, res.rolledBack, "some transactions rolled back")
	require.Positive(t, res.killed, "some backends were terminated")
}
