// Package applier executes a plan: under pgseq's advisory apply lock, in one
// transaction with a bounded lock_timeout, after checking that the database
// is still in the state the plan was made from. It migrates pgseq's schema
// first when needed, runs one batched statement per kind of change (never a
// round trip per row), writes a history row and notifies workers.
package applier
