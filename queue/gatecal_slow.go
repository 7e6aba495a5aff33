//go:build gatecal

package queue

import "time"

// gatecalWorkPerTask is the CPU time the calibration build spends per task
// claimed, set at link time:
//
//	go build -tags gatecal -ldflags "-X github.com/pgseq/pgseq/queue.gatecalWorkPerTask=3us" -o pgseq-slow ./cmd/pgseq
//
// Never part of a default build.
var gatecalWorkPerTask = "0s"

func init() {
	d, err := time.ParseDuration(gatecalWorkPerTask)
	if err != nil || d <= 0 {
		return
	}
	claimCalibrationWork = func(tasks int) {
		// Busy, not asleep: the claim does more work on the CPU the
		// worker shares with the server, as a slower claim would.
		deadline := time.Now().Add(time.Duration(tasks) * d)
		for time.Now().Before(deadline) {
		}
	}
}
