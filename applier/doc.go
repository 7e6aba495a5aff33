// Package applier plans and applies against the database: under pgseq's
// advisory apply lock, in one transaction with a bounded lock_timeout, it
// reads the state in one snapshot taken after the lock was granted, makes
// the plan to execute there (a configuration is planned against that state;
// a saved or approved plan is checked against it and refused if stale or if
// it does not match), migrates pgseq's schema first when needed, runs one
// batched statement per kind of change (never a round trip per row), writes
// a history row with the managed state the apply left and notifies workers.
// Plan is the same sequence without the lock and the writes; its plan shows
// the drift since the state the last apply recorded. PlanAndApply is the
// whole way from a configuration to the database (plan, review, approval,
// apply) that pgseq apply, the benchmark scenarios and the tests share.
package applier
