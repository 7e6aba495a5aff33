package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// bulkTypes is the number of limited task types the large change adds.
const bulkTypes = 1000

// smallConfig is the old state: two task types.
const smallConfig = `
queue "default" {}

task "app:render" {
  concurrency = 5
}

task "app:mail" {}
`

// largeConfig is the new state: smallConfig with a changed limit and
// bulkTypes limited types, whose limits up to 100 make up to 50 slot groups
// each (about 40,000 slot rows in all).
func largeConfig() string {
	var b strings.Builder
	b.WriteString("queue \"default\" {}\n\ntask \"app:render\" {\n  concurrency = 7\n}\n\ntask \"app:mail\" {}\n")
	for i := range bulkTypes {
		fmt.Fprintf(&b, "\ntask \"bulk:t%04d\" {\n  concurrency = %d\n}\n", i, 1+i%100)
	}
	return b.String()
}

// TestApplyKilled kills pgseq apply of a large change at random moments.
// See the package documentation.
func TestApplyKilled(t *testing.T) {
	t.Parallel()
	started := time.Now()
	kills := 6 * scale(t)
	dir := t.TempDir()
	cs := pgtest.ConnString(t)
	d := &db{pgseqtest.New(t)}
	configs := map[string]string{
		"old": writeFile(t, dir, "old.hcl", smallConfig),
		"new": writeFile(t, dir, "new.hcl", largeConfig()),
	}
	global := []string{"--database-url", cs, "--schema", d.Schema}
	apply := func(state string) time.Duration {
		t.Helper()
		start := time.Now()
		code, out := runPgseq(t, append(global, "apply", "--auto-approve", configs[state])...)
		require.Equal(t, 0, code, "invariant broken: the apply after a killed one must succeed:\n%s", tail(out))
		took := time.Since(start)
		code, out = runPgseq(t, append(global, "plan", "--detailed-exitcode", configs[state])...)
		require.Equal(t, 0, code, "invariant broken: the plan after an apply must be empty:\n%s", tail(out))
		return took
	}

	// The old state, then the time a whole apply takes each way.
	apply("old")
	took := map[string]time.Duration{"new": apply("new"), "old": apply("old")}
	t.Logf("a whole apply takes %s (old → new) and %s (new → old)",
		took["new"].Round(time.Millisecond), took["old"].Round(time.Millisecond))

	state := "old"
	inTx := 0
	for i := range kills {
		target := map[string]string{"old": "new", "new": "old"}[state]
		// The moment of the kill, in turn: anywhere in the first half of a
		// whole apply's time (mostly before the transaction: starting,
		// reading the files, connecting, planning); early in the
		// transaction (once the apply holds its lock); late in it, around
		// the commit.
		app := fmt.Sprintf("crashtest-apply-%d-%d", time.Now().UnixNano(), i)
		args := append([]string{"--database-url", withAppName(t, cs, app), "--schema", d.Schema}, "apply", "--auto-approve", configs[target])
		p := startPgseq(t, dir, app, args...)
		whole := took[target]
		var delay time.Duration
		var from string
		switch i % 3 {
		case 0:
			delay, from = time.Duration(rand.Int64N(int64(whole/2))), "its start"
		case 1:
			waitHolder(t, d, app, p)
			delay, from = time.Duration(rand.Int64N(int64(whole/2))), "taking the lock"
		case 2:
			waitHolder(t, d, app, p)
			delay, from = whole/3+time.Duration(rand.Int64N(int64(whole*2/3))), "taking the lock"
		}
		time.Sleep(delay) // the random moment is the fault being injected
		held := holds(t, d, app)
		finished := !p.running()
		p.kill()
		if held {
			inTx++
		}
		waitGone(t, d, app)

		holders, err := applier.LockHolders(context.Background(), d.Pool, d.Schema)
		require.NoError(t, err)
		require.Empty(t, holders, "invariant broken: the apply lock is free once the killed apply's session is gone")
		now := stateOf(t, global, configs)
		t.Logf("kill %d: %s → %s, %s after %s (lock held: %v, apply already over: %v): the database is in the %s state",
			i+1, state, target, delay.Round(time.Millisecond), from, held, finished, now)
		// The next apply finishes the job.
		apply(target)
		state = target
	}
	require.Positive(t, inTx, "no apply was killed while it held the apply lock: the test did not kill inside the transaction")
	t.Logf("%d applies killed, %d while holding the apply lock, in %s", kills, inTx, time.Since(started).Round(time.Millisecond))
}

// stateOf returns which configuration the database matches, "old" or
// "new", and fails the test when it matches neither: a mix. (It cannot
// match both: they differ.)
func stateOf(t *testing.T, global []string, configs map[string]string) string {
	t.Helper()
	var outs strings.Builder
	for _, state := range []string{"old", "new"} {
		code, out := runPgseq(t, append(global, "plan", "--detailed-exitcode", configs[state])...)
		switch code {
		case 0:
			return state
		case 2:
		default:
			t.Fatalf("plan of the %s configuration failed (exit %d):\n%s", state, code, tail(out))
		}
		fmt.Fprintf(&outs, "--- plan of the %s configuration:\n%s\n", state, tail(out))
	}
	t.Fatalf("invariant broken: after a killed apply the database must be in the old state or the new, never a mix, but neither configuration plans empty:\n%s", outs.String())
	return ""
}

// waitHolder waits until a session of application app holds the apply lock,
// or the apply has exited.
func waitHolder(t *testing.T, d *db, app string, p *proc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !holds(t, d, app) && p.running() {
		require.True(t, time.Now().Before(deadline), "the apply never took its lock:\n%s", p.output())
		time.Sleep(2 * time.Millisecond)
	}
}

// holds reports whether a session of application app holds the apply lock.
func holds(t *testing.T, d *db, app string) bool {
	t.Helper()
	holders, err := applier.LockHolders(context.Background(), d.Pool, d.Schema)
	require.NoError(t, err)
	for _, h := range holders {
		if h.Application == app {
			return true
		}
	}
	return false
}

// waitGone waits until no server process serves application app: the
// killed apply's transaction has committed or rolled back.
func waitGone(t *testing.T, d *db, app string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		d.Scalar(&n, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app)
		if n == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "invariant broken: the killed apply's sessions are still there after a minute")
		time.Sleep(10 * time.Millisecond)
	}
}

// tail returns the last lines of a command's output.
func tail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
