package counter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/internal/pgcode"
)

// SQLSTATEs the counter runtime raises (migration 003), and the PostgreSQL
// ones the client translates.
const (
	CodeUnknownPrefix      = "PS010"
	CodeMalformedKey       = "PS011"
	CodeNotFound           = "PS012"
	CodeProtected          = "PS020"
	CodeUnknownCounter     = "PS021"
	CodeWrongKind          = "PS022"
	CodeNoTwoPhase         = "PS023"
	CodeKeyOtherScope      = "PS024"
	CodeUnknownReservation = "PS025"
	CodeCommittedElsewhere = "PS026"
	CodeExpired            = "PS027"

	CodeLockTimeout   = pgcode.LockNotAvailable     // 55P03: lock_timeout expired
	CodeDeadlock      = pgcode.DeadlockDetected     // 40P01
	CodeSerialization = pgcode.SerializationFailure // 40001
)

// Sentinel errors. Errors returned by the Client match them with errors.Is
// and still carry the database error (errors.As with *pgconn.PgError gives
// the SQLSTATE, message, detail and hint).
var (
	// ErrUnknownPrefix: ResolveKey got PREFIX-N and no counter or scope
	// has that prefix (PS010).
	ErrUnknownPrefix = errors.New("unknown key prefix")
	// ErrMalformedKey: ResolveKey got an empty key, or PREFIX-something
	// that is not PREFIX-NUMBER, or a number out of range (PS011).
	ErrMalformedKey = errors.New("malformed key")
	// ErrNotFound: the key or id is well formed but names nothing that
	// exists (PS012).
	ErrNotFound = errors.New("no entity for key")
	// ErrProtected: counter values may only be lowered or deleted by pgseq
	// apply (PS020).
	ErrProtected = errors.New("counter values are protected")
	// ErrUnknownCounter: no counter of that name is declared (PS021).
	ErrUnknownCounter = errors.New("unknown counter")
	// ErrWrongKind: next_value on an attached counter, whose values the
	// trigger assigns on insert (PS022).
	ErrWrongKind = errors.New("wrong kind of counter for the call")
	// ErrNoTwoPhase: Reserve on a counter without idempotency_window (PS023).
	ErrNoTwoPhase = errors.New("two-phase allocation not enabled for the counter")
	// ErrKeyOtherScope: Reserve with an idempotency key already reserved for
	// another scope of the counter (PS024). Use one key per request.
	ErrKeyOtherScope = errors.New("idempotency key reserved for another scope")
	// ErrUnknownReservation: CommitReservation of an id that does not exist
	// (PS025).
	ErrUnknownReservation = errors.New("unknown reservation")
	// ErrCommittedElsewhere: the reservation was already committed for
	// another entity (PS026).
	ErrCommittedElsewhere = errors.New("reservation committed for another entity")
	// ErrReservationExpired: the reaper failed the reservation after it
	// stayed pending past the counter's idempotency_window (PS027). Reserve
	// again with a new idempotency key.
	ErrReservationExpired = errors.New("reservation expired")
	// ErrLockTimeout: the scope's lock was held by another transaction for
	// longer than the counter's lock_timeout (55P03). The error is a
	// *LockTimeoutError naming the counter and scope.
	ErrLockTimeout = errors.New("counter lock timeout")
	// ErrDeadlock: PostgreSQL aborted the transaction to break a deadlock
	// (40P01), typically two transactions taking numbers from the same
	// scopes in opposite orders. Retry the whole transaction: InTx does.
	ErrDeadlock = errors.New("deadlock")
	// ErrSerialization: a REPEATABLE READ or SERIALIZABLE transaction lost
	// a race (40001). Retry the whole transaction: InTx does.
	ErrSerialization = errors.New("serialization failure")
)

var sentinels = map[string]error{
	CodeUnknownPrefix:      ErrUnknownPrefix,
	CodeMalformedKey:       ErrMalformedKey,
	CodeNotFound:           ErrNotFound,
	CodeProtected:          ErrProtected,
	CodeUnknownCounter:     ErrUnknownCounter,
	CodeWrongKind:          ErrWrongKind,
	CodeNoTwoPhase:         ErrNoTwoPhase,
	CodeKeyOtherScope:      ErrKeyOtherScope,
	CodeUnknownReservation: ErrUnknownReservation,
	CodeCommittedElsewhere: ErrCommittedElsewhere,
	CodeExpired:            ErrReservationExpired,
	CodeLockTimeout:        ErrLockTimeout,
	CodeDeadlock:           ErrDeadlock,
	CodeSerialization:      ErrSerialization,
}

// Error is a database error raised by a counter call, with what was being
// done. It matches its sentinel (ErrNotFound, ErrDeadlock, …) with
// errors.Is, and the *pgconn.PgError with errors.As.
type Error struct {
	// Op says what was being done, e.g. `next value of counter "invoice" scope "2026"`.
	Op string
	// Code is the SQLSTATE.
	Code string
	// Kind is the sentinel the code maps to; nil for codes the package does
	// not name.
	Kind error
	// Err is the database error.
	Err *pgconn.PgError
}

// Error reads "<op>: <server message> (SQLSTATE <code>)", followed by the
// server's hint, or for a retryable error by the advice to retry.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (SQLSTATE %s)", e.Op, e.Err.Message, e.Code)
	switch {
	case e.Retryable():
		b.WriteString("; run the whole transaction again (counter.InTx does)")
	case e.Err.Hint != "":
		b.WriteString("; ")
		b.WriteString(e.Err.Hint)
	}
	return b.String()
}

// Unwrap returns the sentinel and the database error.
func (e *Error) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether running the whole transaction again may succeed:
// a deadlock or a serialization failure.
func (e *Error) Retryable() bool { return e.Code == CodeDeadlock || e.Code == CodeSerialization }

// LockTimeoutError is returned when a counter call waited longer than the
// counter's lock_timeout for a scope that another transaction holds (it
// holds it until it commits or rolls back). It matches ErrLockTimeout.
type LockTimeoutError struct {
	// Counter is the counter's name.
	Counter string
	// Scopes are the scopes the call was waiting to take (one for
	// NextValue; all of them for NextValues, which cannot tell which one
	// was held; none when the counter's trigger timed out inside an
	// INSERT, see Client.Translate).
	Scopes []string
	// Err is the database error.
	Err *pgconn.PgError
}

// Error names the counter and scope.
func (e *LockTimeoutError) Error() string {
	var where string
	switch len(e.Scopes) {
	case 0:
		where = fmt.Sprintf("counter %q", e.Counter)
	case 1:
		where = fmt.Sprintf("counter %q scope %q", e.Counter, e.Scopes[0])
	default:
		where = fmt.Sprintf("counter %q scopes %q", e.Counter, e.Scopes)
	}
	return where + ": gave up waiting after the counter's lock_timeout: another transaction holds the scope " +
		"until it commits or rolls back (SQLSTATE 55P03: " + e.Err.Message + ")"
}

// Unwrap returns ErrLockTimeout and the database error.
func (e *LockTimeoutError) Unwrap() []error { return []error{ErrLockTimeout, e.Err} }

// IsRetryable reports whether err means the transaction was aborted by a
// deadlock (40P01) or a serialization failure (40001), so running it again
// may succeed.
func IsRetryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == CodeDeadlock || pgErr.Code == CodeSerialization
	}
	return false
}

// translate turns a database error into the package's errors. counter and
// scopes name what a lock timeout was waiting for.
func translate(op, counter string, scopes []string, err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if pgErr.Code == CodeLockTimeout && counter != "" {
		return &LockTimeoutError{Counter: counter, Scopes: scopes, Err: pgErr}
	}
	return &Error{Op: op, Code: pgErr.Code, Kind: sentinels[pgErr.Code], Err: pgErr}
}
