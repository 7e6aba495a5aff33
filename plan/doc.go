// Package plan defines a pgseq plan as data: the changes that reconcile the
// database with the configuration, each with its before and after values and
// the live context beside it, and apart from them the drift: what was
// changed outside pgseq since the last apply, for display. Package planner
// makes plans; package render shows them; package applier executes them. A
// plan is JSON-encodable and versioned (FormatVersion), so a saved plan can
// be applied later and a CI job can read it. Write adds a checksum; Read
// refuses a document that is not exactly a plan pgseq could have written
// (see Read and Validate), and Differences compares two plans by what they
// would do.
package plan
