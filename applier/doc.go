// Package applier executes a plan against the database: under pgseq's
// advisory apply lock, in one transaction with a bounded lock_timeout, it
// reads the state in one snapshot taken after the lock was granted and has
// the caller make the plan to execute from it (Execute, Decide), migrates
// pgseq's schema first when needed, runs one batched statement per kind of
// change (never a round trip per row), writes a history row with the
// managed state the apply left and notifies workers. Snapshot is the same
// read without the lock and the writes.
//
// The applier consumes plans; it does not make them. Package reconcile
// reads the state, plans (package planner) and hands the plan to Execute:
// pgseq plan, pgseq apply, the benchmark scenarios and the tests go
// through it.
package applier
