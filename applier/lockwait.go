package applier

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/internal/pgcode"
)

// A statement that waits for a lock longer than lock_timeout fails with
// "canceling statement due to lock timeout", which names neither the lock
// nor who holds it, and once it failed the wait is gone from pg_locks. So
// while a plan or an apply runs, a watcher looks, on a connection of its
// own, every half lock timeout (at most every second, at least every
// 50ms), at whether the sessions it runs on wait for a lock
// (pg_blocking_pids): a wait long enough to time out is seen at least
// once before it does, and the error then says what was seen.

// LockWaitError says a statement gave up waiting for a lock after the lock
// timeout, with the waits seen just before: which lock, and the sessions
// holding it (or queued ahead for it).
type LockWaitError struct {
	// Timeout is the lock timeout that expired.
	Timeout time.Duration
	// Waits are the lock waits last seen; empty when none was seen (a lock
	// timeout too short to watch, or no connection to look from).
	Waits []LockWait
	// Err is the error of the statement that gave up.
	Err error
}

// LockWait is a session of the plan or apply waiting for a lock.
type LockWait struct {
	// Relation is the table (schema.name) whose lock, or one of whose rows'
	// lock, is awaited; "" for other locks.
	Relation string
	// LockType is pg_locks.locktype of the awaited lock: relation,
	// transactionid (a row), advisory…
	LockType string
	// Mode is the lock mode awaited (AccessShareLock…).
	Mode string
	// Blockers are the sessions it waits for.
	Blockers []Blocker
}

// Blocker is a session another one waits for (pg_blocking_pids): it holds
// a conflicting lock, or waits ahead for one.
type Blocker struct {
	PID         int
	User        string
	Application string
	Client      string
	// State is pg_stat_activity.state: active, idle in transaction…
	State string
	// For is how long its transaction (or session) has run.
	For time.Duration
	// Holds are the modes it holds on the lock's relation; empty when it
	// waits ahead rather than holds.
	Holds []string
}

func (b Blocker) String() string {
	app := b.Application
	if app == "" {
		app = "no application_name"
	}
	what := "waiting ahead for a lock on it"
	if len(b.Holds) > 0 {
		what = "holding " + strings.Join(b.Holds, ", ")
	}
	state := b.State
	if state == "" {
		state = "state unknown"
	}
	return fmt.Sprintf("pid %d (user %q, application %q, from %s, %s, in its transaction for %s, %s)",
		b.PID, b.User, app, b.Client, state, b.For.Round(time.Second), what)
}

func (w LockWait) String() string {
	target := "a lock"
	switch {
	case w.Relation != "" && w.LockType == "relation":
		target = "a lock on table " + w.Relation
	case w.Relation != "":
		target = "a row lock in table " + w.Relation
	case w.LockType != "":
		target = "a lock (" + w.LockType + ")"
	}
	if len(w.Blockers) == 0 {
		return target + ", holder gone"
	}
	parts := make([]string, len(w.Blockers))
	for i, b := range w.Blockers {
		parts[i] = b.String()
	}
	return fmt.Sprintf("%s (%s), held by %s", target, w.Mode, strings.Join(parts, "; "))
}

func (e *LockWaitError) Error() string {
	if len(e.Waits) == 0 {
		return fmt.Sprintf("gave up waiting for a lock after %s (--lock-timeout); the holder could not be seen: %v", e.Timeout, e.Err)
	}
	parts := make([]string, len(e.Waits))
	for i, w := range e.Waits {
		parts[i] = w.String()
	}
	return fmt.Sprintf("gave up after %s (--lock-timeout) waiting for %s; wait for that session to finish, or raise --lock-timeout: %v",
		e.Timeout, strings.Join(parts, "; and for "), e.Err)
}

// Unwrap returns the statement's error.
func (e *LockWaitError) Unwrap() error { return e.Err }

//go:embed sql/lock_waits.sql
var lockWaitsSQL string

// lockWatch watches the sessions a plan or an apply runs on for lock
// waits (see watchLocks).
type lockWatch struct {
	timeout time.Duration
	db      RowsQuerier        // nil: nothing is watched
	cancel  context.CancelFunc // stops loop
	done    chan struct{}      // closed when loop returns

	// looking is held while a look runs, so that explain waits for a look
	// in flight: its snapshot of pg_locks may be the only one that saw the
	// wait, taken before the wait timed out.
	looking sync.Mutex

	mu   sync.Mutex
	pids []uint32
	seen []LockWait // the last waits seen
}

// watchLocks starts watching for the lock waits of the sessions added
// (add), querying through db, for a plan or an apply whose lock waits time
// out after timeout. It watches nothing when db cannot run queries of its
// own (it is not a pool) or timeout is too short to watch; explain still
// names the timeout then. close stops it.
func watchLocks(ctx context.Context, db any, timeout time.Duration) *lockWatch {
	w := &lockWatch{timeout: timeout}
	q, ok := db.(RowsQuerier)
	if !ok || timeout < 2*minWatchPeriod {
		return w
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.db, w.cancel, w.done = q, cancel, make(chan struct{})
	go w.loop(ctx, min(max(timeout/2, minWatchPeriod), maxWatchPeriod))
	return w
}

// Bounds of the watcher's period.
const (
	minWatchPeriod = 50 * time.Millisecond
	maxWatchPeriod = time.Second
)

// add watches the session of q, a transaction or a connection.
func (w *lockWatch) add(q any) {
	if w.db == nil {
		return
	}
	var pid uint32
	switch c := q.(type) {
	case pgx.Tx:
		pid = c.Conn().PgConn().PID()
	case *pgx.Conn:
		pid = c.PgConn().PID()
	default:
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pids = append(w.pids, pid)
}

// close stops the watcher and waits for it.
func (w *lockWatch) close() {
	if w.db == nil {
		return
	}
	w.cancel()
	<-w.done
}

func (w *lockWatch) loop(ctx context.Context, period time.Duration) {
	defer close(w.done)
	tick := time.NewTicker(period)
	defer tick.Stop()
	// A look may take longer than a period on a busy machine (a new
	// connection, a slow catalog read): it is given lookTimeout, and the
	// ticks it outlasts are dropped. The first look runs at once, so the
	// connection it dials is ready before the first wait.
	look := func() {
		qctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		w.look(qctx)
	}
	look()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			look()
		}
	}
}

// lookTimeout bounds one look of the watcher.
const lookTimeout = 5 * time.Second

// look records the lock waits of the watched sessions, if any. A wait
// that ended is not forgotten until another is seen: the error of a
// timed-out wait may come after a look that found nothing.
func (w *lockWatch) look(ctx context.Context) {
	w.looking.Lock()
	defer w.looking.Unlock()
	w.mu.Lock()
	pids := append([]uint32(nil), w.pids...)
	w.mu.Unlock()
	waits, err := lockWaits(ctx, w.db, pids)
	if err != nil || len(waits) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = waits
}

// explain turns err, when a statement gave up waiting for a lock
// (lock_not_available) and it is not the apply lock's *LockTimeoutError,
// into a *LockWaitError with the waits seen; any other err is returned as
// it is.
func (w *lockWatch) explain(err error) error {
	var pgErr *pgconn.PgError
	var applyLock *LockTimeoutError
	if err == nil || !errors.As(err, &pgErr) || pgErr.Code != pgcode.LockNotAvailable || errors.As(err, &applyLock) {
		return err
	}
	if w.db != nil {
		// A look in flight may hold the only sight of the wait.
		w.looking.Lock()
		//lint:ignore SA2001 waiting for the look in flight is the point
		w.looking.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return &LockWaitError{Timeout: w.timeout, Waits: w.seen, Err: err}
}

// lockWaits returns the lock waits of the sessions pids, each with the
// sessions it waits for.
func lockWaits(ctx context.Context, db RowsQuerier, pids []uint32) ([]LockWait, error) {
	ids := make([]int64, len(pids))
	for i, p := range pids {
		ids[i] = int64(p)
	}
	rows, err := db.Query(ctx, lockWaitsSQL, ids)
	if err != nil {
		return nil, err
	}
	var out []LockWait
	var (
		waiter                   int
		relation, lockType, mode string
		b                        Blocker
		forSeconds               float64
		holds                    []string
		lastWaiter               = -1
	)
	_, err = pgx.ForEachRow(rows, []any{&waiter, &relation, &lockType, &mode,
		&b.PID, &b.User, &b.Application, &b.Client, &b.State, &forSeconds, &holds}, func() error {
		if waiter != lastWaiter {
			out = append(out, LockWait{Relation: relation, LockType: lockType, Mode: mode})
			lastWaiter = waiter
		}
		b.For = time.Duration(forSeconds * float64(time.Second))
		b.Holds = holds
		w := &out[len(out)-1]
		w.Blockers = append(w.Blockers, b)
		return nil
	})
	return out, err
}
