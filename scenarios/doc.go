// Package scenarios holds pgseq's benchmark scenarios and their runner.
//
// The drain scenario (RunDrain) measures the queue runtime end to end:
// it seeds no-op tasks into a fresh schema with a variant's configuration,
// a scenario of the shipped drain.hcl (Baseline: one unlimited type;
// Enabled: 100 types each limited to 10; Mixed: 100 types, one limited to
// 10), drains them with in-process queue.Workers and records throughput
// and the claim and complete round trips' latencies. Variants run
// interleaved, round after round, and each is reported as its median
// ratio to the baseline of the same round with a confidence interval,
// absolute figures beside them (DrainReport).
//
// The soak workload (RunSoak) churns tasks for a long time: a producer
// enqueues at a steady rate while in-process workers drain and the
// leader's maintenance purges finished tasks past retention, optionally
// with another session holding a snapshot; it samples claim latency, dead
// tuples and table size over time (report.SoakRun).
//
// The scale workload (RunScale) times the reconciler on a large generated
// configuration — task types on one queue, each limited, written as HCL
// files — as the CLI runs it: the first apply to a fresh schema, no-op
// plans of the same files and the apply of a change to 1% of the types,
// with the most Go heap in use meanwhile (report.ScaleRun).
//
// Progress goes to a Progress observer; rendering (progress bars, files) is
// left to the caller (pgseq bench).
//
// # Packages
//
// This package holds the runners: the workloads (drain, explain, counters,
// soak, scale), the suite that runs a set of scenarios and judges them
// (RunSuite), and the benchmarks of pgseq bench drain and pgseq bench
// counters with their reports, whose cases are shipped scenario files
// (drain.hcl, bench-counters/counters.hcl). What they read and write lives
// in packages of its own:
//
//   - scenariofile: the scenario file language — the Scenario values a
//     file declares, the metrics thresholds may bound, the parser and its
//     diagnostics; the format is documented below (Scenario files);
//   - report: the results of a run (SuiteResult), its thresholds judged,
//     its JSON and Markdown, and the rounds of several runs merged;
//   - compare: two runs compared metric by metric (pgseq bench compare),
//     and a run in the Go benchmark format for benchstat;
//   - charts: a run's charts;
//   - stats: medians and their confidence intervals, latency percentiles,
//     the Mann–Whitney U test.
package scenarios
