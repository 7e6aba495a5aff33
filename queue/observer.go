package queue

import "time"

// Observer receives a worker's events, for metrics (package metrics
// implements it for Prometheus). Its methods are called from the worker's
// goroutines, concurrently, and must return quickly; they must not keep or
// modify the tasks and slices they are given. Latencies are database round
// trips as the worker saw them. The first event of a Run is SettingsLoaded,
// which names the queue; an Observer serves one worker.
type Observer interface {
	// Claimed reports one claim: the batch size asked for, the number of
	// tasks received and the round trip's latency. err is the claim's
	// error, if it failed.
	Claimed(requested, got int, latency time.Duration, err error)
	// Received reports the tasks the worker received, before any of them
	// runs: by a claim (handedOff false, after Claimed), or handed over by
	// a completion (handedOff true, after HandedOff). Never empty.
	Received(tasks []*Task, handedOff bool)
	// Started reports that a handler starts running t.
	Started(t *Task)
	// Handled reports that t's handler returned, after running for took,
	// with err: nil means t joins the next batched completion, else Failed
	// follows unless abandoned. abandoned means t was no longer the
	// worker's to finish (released after the shutdown timeout, or the
	// worker was declared dead): its result is discarded. Every Started
	// is followed by one Handled.
	Handled(t *Task, took time.Duration, err error, abandoned bool)
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

// Received implements Observer.
func (NopObserver) Received([]*Task, bool) {}

// Started implements Observer.
func (NopObserver) Started(*Task) {}

// Handled implements Observer.
func (NopObserver) Handled(*Task, time.Duration, error, bool) {}

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
