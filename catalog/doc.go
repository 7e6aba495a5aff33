// Package catalog is the one model of pgseq-managed objects. The same types
// describe the desired state (built by package spec from HCL files) and the
// actual state (read from the database by package inspect), so the planner
// compares like with like. The package does no I/O.
package catalog
