package applier

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgcode"
)

// LockKey is the advisory lock key that serialises applies (and migrations)
// on one schema. Other schemas in the same database use other keys.
func LockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("pgseq apply lock\x00"))
	h.Write([]byte(schema))
	return int64(h.Sum64())
}

// Holder is a session holding the apply lock.
type Holder struct {
	PID         int
	User        string
	Application string
	Client      string
	// Since is when its transaction (or session) began, For how long ago
	// that was, by the server's clock. Zero when the server does not show
	// them: another role's session, to a role without pg_read_all_stats.
	Since time.Time
	For   time.Duration
}

func (h Holder) String() string {
	app := h.Application
	if app == "" {
		app = "unknown application"
	}
	if h.Since.IsZero() {
		return fmt.Sprintf("pid %d, user %q, %s, from %s, since a time this role may not see (another role's session: pg_read_all_stats shows it)",
			h.PID, h.User, app, h.Client)
	}
	return fmt.Sprintf("pid %d, user %q, %s, from %s, since %s (%s ago)",
		h.PID, h.User, app, h.Client, h.Since.UTC().Format(time.RFC3339), h.For.Round(time.Second))
}

// LockTimeoutError says the apply lock could not be taken within the lock
// timeout, and who holds it.
type LockTimeoutError struct {
	Schema  string
	Timeout time.Duration
	Holders []Holder
}

func (e *LockTimeoutError) Error() string {
	who := "the holder is gone now; try again"
	if len(e.Holders) > 0 {
		parts := make([]string, len(e.Holders))
		for i, h := range e.Holders {
			parts[i] = h.String()
		}
		who = "held by " + strings.Join(parts, "; ")
	}
	return fmt.Sprintf("another pgseq apply is running on schema %q: timed out after %s waiting for the apply lock (%s); try again later or raise --lock-timeout",
		e.Schema, e.Timeout, who)
}

// Lock takes the apply lock for schema inside tx; it is released when tx
// ends. tx must have lock_timeout set. On timeout the error is a
// *LockTimeoutError naming the holder, looked up through db. Once the lock
// is granted, and before anything is written, it refuses a schema the
// current user cannot trust (inspect.CheckTrust, an *inspect.UntrustedSchemaError): every
// apply and migration takes the lock before it writes.
func Lock(ctx context.Context, tx pgx.Tx, db RowsQuerier, schema string, timeout time.Duration) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, LockKey(schema))
	if err == nil {
		return inspect.CheckTrust(ctx, tx, schema)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgcode.LockNotAvailable {
		holders, herr := LockHolders(ctx, db, schema)
		if herr != nil {
			return fmt.Errorf("timed out waiting for the apply lock on schema %q (could not look up the holder: %v)", schema, herr)
		}
		return &LockTimeoutError{Schema: schema, Timeout: timeout, Holders: holders}
	}
	return fmt.Errorf("taking the apply lock on schema %q: %w", schema, err)
}

// RowsQuerier runs a query; a pool or a connection.
type RowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// LockHolders returns the sessions holding the apply lock of schema.
func LockHolders(ctx context.Context, db RowsQuerier, schema string) ([]Holder, error) {
	rows, err := db.Query(ctx, statement("lock_holder", schema), LockKey(schema))
	if err != nil {
		return nil, err
	}
	var out []Holder
	var h Holder
	// Another role's session shows NULL times to a role without
	// pg_read_all_stats.
	var since *time.Time
	var seconds *float64
	_, err = pgx.ForEachRow(rows, []any{&h.PID, &h.User, &h.Application, &h.Client, &since, &seconds}, func() error {
		h.Since, h.For = time.Time{}, 0
		if since != nil && seconds != nil {
			h.Since, h.For = *since, time.Duration(*seconds*float64(time.Second))
		}
		out = append(out, h)
		return nil
	})
	return out, err
}
