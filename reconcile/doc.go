// Package reconcile takes a configuration to the database: it reads the
// actual state (package inspect), checks what the configuration names
// there (counters' tables, the access block's roles), plans the desired
// state against it (package planner), and has the plan executed (package
// applier). It is the pipeline's one sequence, and the only package that
// calls both the planner and the applier.
//
// Plan and PlanWithin plan without the apply lock (pgseq plan).
// ApplyConfig plans under the apply lock and applies (pgseq apply
// --auto-approve); ApplyApproved applies a plan a person approved,
// refused if it changed meanwhile; Apply applies a saved plan (pgseq apply
// PLANFILE), refused if it is stale or does not match the database.
// PlanAndApply is the whole way (plan, review, approval, apply) that pgseq
// apply, the benchmark scenarios and the tests share.
package reconcile
