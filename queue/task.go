package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Task is a claimed task handed to a Handler. A handler must not keep it
// after returning.
type Task struct {
	// ID is the task's id, as Enqueue returned it.
	ID int64
	// Type is the task type the handler was chosen by.
	Type string
	// Payload is the JSON payload; nil when the task has none.
	Payload json.RawMessage
	// Attempts counts the task's executions including this one, as the
	// runtime recorded it at claim time.
	Attempts int

	// holdsUnit is true for a task of a limited type: it holds one of its
	// type's slot units until it is completed or failed.
	holdsUnit bool
	// handedOff is true for a task a completion of this worker's took over
	// (complete_and_take): its unit came back to the worker that released
	// it, as one of a cohort of units that cycle through this worker.
	handedOff bool

	// promotion is set for a reserved successor the worker started in
	// place of a finished task of its type: it is closed once the
	// completion reporting the start has returned, promoted then saying
	// whether the task is the worker's (running on the finished task's
	// unit). Its outcome is reported only after that (see awaitPromotion).
	promotion   chan struct{}
	promoted    bool
	predecessor int64 // the finished task it started in place of

	// abandoned is set, under the session's lock, when the task is no
	// longer the worker's to finish (released, or the worker was declared
	// dead): its handler's result is discarded.
	abandoned bool
}

// Decode unmarshals the payload into v.
func (t *Task) Decode(v any) error {
	if t.Payload == nil {
		return fmt.Errorf("task %d (%s) has no payload", t.ID, t.Type)
	}
	return json.Unmarshal(t.Payload, v)
}

// Handler runs one task. Returning nil completes it; returning an error
// fails it, and the queue's retry and backoff settings decide whether it
// runs again (wrap the error with NoRetry to fail it for good). A panic is
// recovered and treated as an error. ctx is cancelled when the worker stops
// waiting for the handler (shutdown grace period over, or the worker was
// declared dead); handlers of long tasks should honour it.
type Handler func(ctx context.Context, t *Task) error

// NoRetry wraps err so that the task fails for good instead of being retried.
func NoRetry(err error) error {
	if err == nil {
		return nil
	}
	return &noRetryError{err: err}
}

type noRetryError struct{ err error }

func (e *noRetryError) Error() string { return e.err.Error() }
func (e *noRetryError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var nr *noRetryError
	return !errors.As(err, &nr)
}

// PanicError is the error a panicking handler is failed with.
type PanicError struct {
	// Value is what the handler panicked with.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

// Error implements error.
func (e *PanicError) Error() string { return fmt.Sprintf("handler panicked: %v", e.Value) }
