// Package planner computes a plan from the desired state (package spec) and
// the actual state (package inspect), and with the state the last apply
// recorded, the drift: what changed outside pgseq since (Drift). Plan is a pure, deterministic
// function: the same inputs give the same plan, byte for byte, and it does no
// I/O. The slot-group arithmetic for concurrency limits lives here too.
package planner
