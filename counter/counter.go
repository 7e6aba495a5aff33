package counter

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/migrations"
)

// DB is what the Client needs to run a statement: a pgx.Tx (the usual
// case: numbers belong to the caller's transaction), a *pgx.Conn or a
// *pgxpool.Pool (each call then commits on its own).
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Client calls the counter functions of one pgseq schema. It holds no
// connection: every call takes the DB to run on, so that numbers are taken
// inside the caller's transaction. A Client is safe for concurrent use.
type Client struct {
	schema string
	sql    statements
}

type statements struct {
	nextValue, nextValues, reserve, commit, reap, resolve, pending string
}

// New returns a client for the counter runtime in schema ("" means pgseq's
// default schema, migrations.DefaultSchema). The schema name is quoted, never
// spliced into SQL as is.
func New(schema string) *Client {
	if schema == "" {
		schema = migrations.DefaultSchema
	}
	s := pgx.Identifier{schema}.Sanitize()
	return &Client{schema: schema, sql: statements{
		nextValue:  "SELECT " + s + ".next_value($1, $2)",
		nextValues: "SELECT v FROM " + s + ".next_values($1, $2::text[]) AS v",
		reserve:    "SELECT " + s + ".reserve($1, $2, $3)",
		commit:     "SELECT " + s + ".commit_reservation($1, $2)",
		reap:       "SELECT " + s + ".reap_reservations()",
		resolve:    "SELECT counter, scope, number, coalesce(row_id, '') FROM " + s + ".resolve_key($1)",
		pending: `SELECT r.id, r.counter, r.scope, r.idempotency_key, r.created_at
FROM ` + s + `.reservations r
WHERE r.status = 'pending' AND r.created_at <= now() - $1::interval AND r.id > $2
ORDER BY r.id LIMIT $3`,
	}}
}

// Schema returns the pgseq schema the client works in.
func (c *Client) Schema() string { return c.schema }

// NextValue issues the next number of scope in the standalone counter name
// (scope "" for a counter with a single numbering), in db's transaction.
// The scope stays locked until that transaction ends: commit keeps the
// number, rollback gives it back, so committed numbers are gapless and
// never repeat. A wait longer than the counter's lock_timeout returns a
// *LockTimeoutError; a deadlock (another transaction taking the same scopes
// in the opposite order) an error matching ErrDeadlock, after which the
// transaction must be retried (InTx does it). Use NextValues to take
// several scopes in one call without any risk of deadlock.
func (c *Client) NextValue(ctx context.Context, db DB, name, scope string) (int64, error) {
	var v int64
	if err := db.QueryRow(ctx, c.sql.nextValue, name, scope).Scan(&v); err != nil {
		return 0, translate(fmt.Sprintf("next value of counter %q scope %q", name, scope), name, []string{scope}, err)
	}
	return v, nil
}

// NextValues issues one number per scope of the standalone counter name, in
// db's transaction, and returns them in the order of scopes (a scope given
// twice gets two consecutive numbers). The scopes are locked in ascending
// lock-key order (the advisory lock key, then the scope's text for keys
// that collide), so two NextValues calls do not deadlock with each other,
// whatever order their scopes are given in. Other transactions that take
// the same scopes one at a time, in another order, can still deadlock with
// it: run those with InTx, which retries.
func (c *Client) NextValues(ctx context.Context, db DB, name string, scopes []string) ([]int64, error) {
	op := fmt.Sprintf("next values of counter %q scopes %q", name, scopes)
	if scopes == nil {
		scopes = []string{}
	}
	rows, err := db.Query(ctx, c.sql.nextValues, name, scopes)
	if err != nil {
		return nil, translate(op, name, scopes, err)
	}
	vals, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, translate(op, name, scopes, err)
	}
	if len(vals) != len(scopes) {
		return nil, fmt.Errorf("%s: got %d values for %d scopes", op, len(vals), len(scopes))
	}
	return vals, nil
}

// Reserve records phase one of a two-phase allocation for an entity created
// outside the database transaction: it returns the id of the reservation
// for idempotencyKey in counter (and scope), creating it if needed. The
// same key always returns the same reservation, also under concurrent
// calls; the same key for another scope fails with ErrKeyOtherScope. No
// number is assigned yet: a reservation that is never committed
// burns none. The counter must have an idempotency_window.
//
// Reserve commits on its own when db is a pool; it may also run in a
// transaction, which then holds the key until it ends.
func (c *Client) Reserve(ctx context.Context, db DB, counter, scope, idempotencyKey string) (int64, error) {
	var id int64
	if err := db.QueryRow(ctx, c.sql.reserve, counter, scope, idempotencyKey).Scan(&id); err != nil {
		return 0, translate(fmt.Sprintf("reserving in counter %q scope %q (key %q)", counter, scope, idempotencyKey), "", nil, err)
	}
	return id, nil
}

// CommitReservation is phase two: it assigns the reservation's number in
// db's transaction, the one that records entityID, and returns it. Calling
// it again for the same entity returns the same number; for another
// entity it fails with ErrCommittedElsewhere, and after the reaper failed
// the reservation with ErrReservationExpired. The counter's scope stays
// locked until the transaction ends, as with NextValue.
func (c *Client) CommitReservation(ctx context.Context, db DB, reservationID int64, entityID string) (int64, error) {
	var v int64
	if err := db.QueryRow(ctx, c.sql.commit, reservationID, entityID).Scan(&v); err != nil {
		return 0, translate(fmt.Sprintf("committing reservation %d for entity %q", reservationID, entityID), "", nil, err)
	}
	return v, nil
}

// ReapReservations fails the pending reservations that are older than
// their counter's idempotency_window and returns how many it failed. They
// burn no number. Reservations being committed at that moment are skipped.
// A Reaper calls it periodically, after committing the reservations whose
// entity exists.
func (c *Client) ReapReservations(ctx context.Context, db DB) (int, error) {
	var n int
	if err := db.QueryRow(ctx, c.sql.reap).Scan(&n); err != nil {
		return 0, translate("reaping reservations", "", nil, err)
	}
	return n, nil
}

// Resolved is what a key names.
type Resolved struct {
	// Counter is the counter that issued the number.
	Counter string
	// Scope is the scope's text: "" without scope, the scope column's value
	// for one column, a JSON array for several.
	Scope string
	// Number is the number within the scope.
	Number int64
	// RowID is the numbered row's primary key as text, for an attached
	// counter; "" for a standalone counter.
	RowID string
}

// ResolveKey turns what a user typed into what it names: a key PREFIX-N
// (prefix case-insensitive, surrounding whitespace and leading zeros
// ignored) or a primary key of a table with an attached counter. It
// usually returns one result; several when counters share a prefix or
// tables share an id. Errors match ErrMalformedKey, ErrUnknownPrefix or
// ErrNotFound and keep the server's message.
//
// A key that is not UTF-8 text, or that holds a NUL byte, cannot reach
// the server: it is refused here with the error the server gives a
// malformed key (PS011, ErrMalformedKey).
func (c *Client) ResolveKey(ctx context.Context, db DB, key string) ([]Resolved, error) {
	op := fmt.Sprintf("resolving key %q", key)
	if !utf8.ValidString(key) || strings.ContainsRune(key, 0) {
		return nil, &Error{Op: op, Code: CodeMalformedKey, Kind: ErrMalformedKey, Err: &pgconn.PgError{
			Severity: "ERROR", Code: CodeMalformedKey,
			Message: "a key is UTF-8 text without NUL bytes (refused before it was sent)",
		}}
	}
	rows, err := db.Query(ctx, c.sql.resolve, key)
	if err != nil {
		return nil, translate(op, "", nil, err)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Resolved, error) {
		var r Resolved
		err := row.Scan(&r.Counter, &r.Scope, &r.Number, &r.RowID)
		return r, err
	})
	if err != nil {
		return nil, translate(op, "", nil, err)
	}
	return res, nil
}

// triggerFunction finds an attached counter's trigger function in an
// error's context: PL/pgSQL names it "[schema.]counter__<name>()", quoted
// when needed.
var triggerFunction = regexp.MustCompile(`PL/pgSQL function (?:((?:"(?:[^"]|"")+")|[^.\s"(]+)\.)?(?:"counter__((?:[^"]|"")+)"|counter__([^\s"(]+))\(\)`)

// Translate turns an error from a statement that inserted into a table
// with an attached counter into the package's errors: a lock timeout in
// the counter's trigger becomes a *LockTimeoutError naming the counter, a
// deadlock or serialization failure an *Error matching ErrDeadlock or
// ErrSerialization. Other errors come back unchanged, as does nil.
func (c *Client) Translate(err error) error {
	var pgErr *pgconn.PgError
	if err == nil || !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case CodeLockTimeout:
		for _, m := range triggerFunction.FindAllStringSubmatch(pgErr.Where, -1) {
			if m[1] != "" && unquote(m[1]) != c.schema {
				continue
			}
			name := m[3]
			if name == "" {
				name = strings.ReplaceAll(m[2], `""`, `"`)
			}
			return &LockTimeoutError{Counter: name, Err: pgErr}
		}
	case CodeDeadlock, CodeSerialization:
		return &Error{Op: "statement on a table with an attached counter", Code: pgErr.Code, Kind: sentinels[pgErr.Code], Err: pgErr}
	}
	return err
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}
