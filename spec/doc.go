// Package spec reads pgseq's configuration language: HCL files that declare
// the desired state of a pgseq schema (queue, task, counter and access
// blocks). It parses and validates them into a Config whose State is a
// catalog.State, and reports every problem at once as hcl.Diagnostics that
// point at the offending source. It does no I/O beyond reading the files it
// is given and never touches a database.
//
// The language itself — every block and argument, its default and range,
// names, durations, input limits, per-key limits — is documented in
// docs/configuration.md of the module's repository, whose examples
// go test ./docs parses with this package.
//
// # Entry points
//
// Load reads files and directories, Parse reads in-memory sources, and
// WriteDiagnostics prints what they report. Format is the canonical layout
// used by pgseq fmt; WriteHCL renders a state (such as one inspected from a
// database) as configuration that parses back to the same state. ParseFile
// and DecodeConfigBlocks serve formats that embed configuration blocks, such
// as the benchmark scenarios of package scenarios.
//
// Some checks need a database and are made later, when planning:
// Config.Counters records where each counter's table and columns are set and
// Config.CounterDiag builds a diagnostic pointing there; Config.Roles records
// where each role of the access block is first named and Config.AccessDiag
// does the same for roles.
//
// # Limits
//
// Before a file is parsed its bytes are checked against limits no real
// configuration comes near, so that no input can crash or stall the parser:
// MaxFileSize, MaxNesting, MaxNumberLength, MaxStringLength and
// MaxIdentifierLength. A file over a limit gets one diagnostic where the
// limit is passed and is not parsed.
package spec
