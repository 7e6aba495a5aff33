package counter_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// TestBackfillUnderConcurrentInserts: a table whose rows the application
// numbers itself (advisory lock + MAX+1, rows 1..k per scope already
// there) gets an attached counter while 8 clients keep inserting. Inserts
// in flight finish before the apply's table lock, new ones wait for its
// commit and then go through the trigger, which keeps the application's
// own number when it is exactly the next one and refuses the insert
// (PS028) when it is not — where, without the counter, a race between the
// two code paths would have made a duplicate; half the clients switch to
// the new code path (no number of their own) once the apply returned. No
// other insert fails, and
// per scope the numbers are exactly 1..N.
func TestBackfillUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{catalog.StrategyCounterTable, catalog.StrategyAdvisoryLock} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			const (
				workers  = 8
				scopes   = 20
				existing = 50
			)
			e := newEnv(t)
			e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL, index bigint, numbered_by text)`)
			e.Exec(`INSERT INTO {{app}}.tasks (project_id, index, numbered_by)
			        SELECT p, i, 'seed' FROM generate_series(1, $1::int) p, generate_series(1, $2::int) i`, scopes, existing)
			// The apply below migrates the pgseq schema; do it first so the
			// clients' race is with the counter's DDL only.
			e.apply()
			pool := e.ownPool(workers + 2)

			// The application's own numbering, before the counter: lock the
			// scope, then read MAX in a new statement (so its snapshot is
			// taken after the lock), then insert.
			lock := `SELECT pg_advisory_xact_lock(hashtext('app tasks'), $1::int)`
			maxIndex := e.SQL(`SELECT coalesce(max(index), 0) + 1 FROM {{app}}.tasks WHERE project_id = $1`)
			insertOld := e.SQL(`INSERT INTO {{app}}.tasks (project_id, index, numbered_by) VALUES ($1, $2, 'app') RETURNING index`)
			oldPath := func(ctx context.Context, scope int) (got, computed int64, err error) {
				tx, err := pool.Begin(ctx)
				if err != nil {
					return 0, 0, err
				}
				defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
				if _, err := tx.Exec(ctx, lock, scope); err != nil {
					return 0, 0, err
				}
				if err := tx.QueryRow(ctx, maxIndex, scope).Scan(&computed); err != nil {
					return 0, 0, err
				}
				if err := tx.QueryRow(ctx, insertOld, scope, computed).Scan(&got); err != nil {
					return 0, 0, err
				}
				return got, computed, tx.Commit(ctx)
			}
			insertNew := e.SQL(`INSERT INTO {{app}}.tasks (project_id, numbered_by) VALUES ($1, 'trigger') RETURNING index`)
			newPath := func(ctx context.Context, scope int) (got, computed int64, err error) {
				err = pool.QueryRow(ctx, insertNew, scope).Scan(&got)
				return got, got, err
			}

			ctx, cancel := context.WithTimeout(bg, time.Minute)
			defer cancel()
			var (
				applied  atomic.Bool
				stop     atomic.Bool
				wg       sync.WaitGroup
				mu       sync.Mutex
				errs     []error
				inserted int
				refused  int // old-path inserts whose own number was not the next (PS028)
				// Successful inserts so far, by path, read while the
				// clients run.
				oldDone, newDone atomic.Int64
			)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						scope := rand.N(scopes) + 1
						isNew := w%2 == 1 && applied.Load()
						insert := oldPath
						if isNew {
							insert = newPath
						}
						got, computed, err := insert(ctx, scope)
						var pgErr *pgconn.PgError
						mu.Lock()
						switch {
						case err != nil && errors.As(err, &pgErr) && pgErr.Code == "PS028":
							refused++
							err = nil
						case err != nil:
							errs = append(errs, fmt.Errorf("scope %d: %w", scope, err))
						case got != computed:
							errs = append(errs, fmt.Errorf("scope %d: the insert gave %d and got %d", scope, computed, got))
						default:
							inserted++
							if isNew {
								newDone.Add(1)
							} else {
								oldDone.Add(1)
							}
						}
						mu.Unlock()
						if err != nil {
							return
						}
					}
				}()
			}

			// Instead of fixed sleeps, wait for inserts on both sides of the
			// apply: some before it, then, after it returned, some more by
			// each path (old-path clients keep racing the trigger, the
			// others use it). A client that failed has stopped, so give up
			// waiting on the first error; the check below reports it.
			const some = 20
			waitFor := func(what string, cond func() bool) {
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for !cond() {
					mu.Lock()
					failed := len(errs) > 0
					mu.Unlock()
					if failed {
						return
					}
					require.True(t, time.Now().Before(deadline), "timed out waiting for %s", what)
					time.Sleep(5 * time.Millisecond)
				}
			}
			waitFor("inserts before the apply", func() bool { return oldDone.Load() >= some })
			var before int
			e.Scalar(&before, `SELECT count(*) FROM {{app}}.tasks`)
			e.apply(e.attached("task_index", "tasks", 1, strategy))
			applied.Store(true)
			oldAt := oldDone.Load()
			waitFor("inserts after the apply", func() bool {
				return newDone.Load() >= some && oldDone.Load() >= oldAt+some
			})
			stop.Store(true)
			wg.Wait()
			require.NoError(t, errors.Join(errs...), "no insert may fail but a refused number (no duplicate, no unique violation)")

			var byTrigger, total int
			e.Scalar(&byTrigger, `SELECT count(*) FROM {{app}}.tasks WHERE numbered_by = 'trigger'`)
			e.Scalar(&total, `SELECT count(*) FROM {{app}}.tasks`)
			require.Equal(t, scopes*existing+inserted, total)
			require.Greater(t, before, scopes*existing, "clients inserted before the apply")
			require.Positive(t, byTrigger, "clients inserted after the apply")
			counts := requireGapless(t, e.valuesByScope(`SELECT project_id::text, index FROM {{app}}.tasks`), 1)
			if strategy == catalog.StrategyCounterTable {
				cv := e.counterValues("task_index")
				for s, n := range counts {
					require.EqualValues(t, n, cv[s], "counter row of scope %s", s)
				}
			}
			t.Logf("%d rows before, %d inserted by 8 clients across the apply (%d by the new path, %d old-path inserts refused for a number not next), gapless in %d scopes",
				scopes*existing, inserted, byTrigger, refused, len(counts))
		})
	}
}
