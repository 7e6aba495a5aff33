package pgseqtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// WaitBlockedBy waits until some backend waits for a lock that backend pid
// holds (pg_blocking_pids), failing the test after 10 s: how a test knows
// that the interleaving it forces has happened, without a sleep.
func WaitBlockedBy(t testing.TB, pool *pgxpool.Pool, pid uint32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var blocked bool
		err := pool.QueryRow(context.Background(),
			`SELECT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE $1::int = ANY (pg_blocking_pids(a.pid)))`, int(pid)).Scan(&blocked)
		if err != nil {
			t.Fatalf("reading who backend %d blocks: %v", pid, err)
		}
		if blocked {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("nothing got blocked by backend %d within 10 s", pid)
}
