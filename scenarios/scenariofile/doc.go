// Package scenariofile reads benchmark scenario files: the language, the
// Scenario values it declares and the metrics their thresholds may bound.
// Load reads files and directories, Parse in-memory sources; both report
// every problem at once as hcl.Diagnostics pointing at the offending
// source, which spec.WriteDiagnostics prints (ReadFiles supplies the
// sources).
//
// The format, every argument of it with the sizes and defaults of each
// workload, is documented in package scenarios (scenarios/file.go), where
// the shipped scenario files are.
package scenariofile
