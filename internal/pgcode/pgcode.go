// Package pgcode names the PostgreSQL SQLSTATEs that pgseq's Go code tests
// for, each defined once (appendix A of the PostgreSQL documentation).
// pgseq's own codes (PS…) are defined by the packages whose SQL raises them.
package pgcode

const (
	// LockNotAvailable (55P03, lock_not_available) is raised when a wait
	// for a lock outlasts lock_timeout, or a NOWAIT lock is taken.
	LockNotAvailable = "55P03"
	// DeadlockDetected (40P01, deadlock_detected): PostgreSQL aborted the
	// transaction to break a deadlock; running it again may succeed.
	DeadlockDetected = "40P01"
	// SerializationFailure (40001, serialization_failure): running the
	// transaction again may succeed.
	SerializationFailure = "40001"
)
