package queue

import "time"

// Observer receives a worker's events, for metrics. Its methods are called
// from the worker's goroutines, concurrently, and must return quickly.
// Latencies are database round trips as the worker saw them.
type Observer interface {
	// Claimed reports one claim: the batch size asked for, the number of
	// tasks received and the round trip's latency. err is the claim's
	// error, if it failed.
	Claimed(requested, got int, latency time.Duration, err error)
	// Completed reports one batched completion of n tasks, of which
	// accepted were still the worker's to complete.
	Completed(n, accepted int, latency time.Duration, err error)
	// Failed reports a task whose handler failed (or that had no handler)
	// and the status the runtime gave it: "pending" (will be retried),
	// "dead_letter", "failed", or "" when the worker no longer owned it.
	Failed(t *Task, status string, cause error, latency time.Duration)
	// HandedOff reports n tasks received with a completion: the slot units
	// of finished tasks of limited types passed straight to waiting tasks
	// of those types, claimed for this worker in the same call.
	HandedOff(n int)
	// Released reports n tasks handed back unexecuted (shutdown).
	Released(n int, latency time.Duration, err error)
	// SettingsLoaded reports the queue settings the worker now uses, at
	// start and after each reload.
	SettingsLoaded(s Settings)
}

// NopObserver ignores every event; embed it to implement only some methods.
type NopObserver struct{}

// Claimed implements Observer.
func (NopObserver) Claimed(int, int, time.Duration, error) {}

// Completed implements Observer.
func (NopObserver) Completed(int, int, time.Duration, error) {}

// Failed implements Observer.
func (NopObserver) Failed(*Task, string, error, time.Duration) {}

// HandedOff implements Observer.
func (NopObserver) HandedOff(int) {}

// Released implements Observer.
func (NopObserver) Released(int, time.Duration, error) {}

// SettingsLoaded implements Observer.
func (NopObserver) SettingsLoaded(Settings) {}
