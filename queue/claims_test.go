package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/queue"
)

// A worker whose completions take over a waiting task for every unit they
// release keeps all of its type's units: nothing they free is left for a
// claim to find, so its fetcher does not claim again after each of them.
// (It did: where a limit binds, every completion was followed by an empty
// claim, server work the unit holders waited behind.) The poll interval is
// long enough that no claim here comes from it: the claims counted are the
// first one and those a completion's freed units woke.
func TestCompletionsThatKeepTheirUnitsWakeNoClaim(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config(fastQueue(), catalog.TaskType{Name: "bound", Concurrency: 5}))
	const n = 600
	enqueueOfType(t, e, "bound", n)

	obs := &counter{}
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, PoolSize: 5, BatchSize: 20, Observer: obs,
		PollInterval: time.Hour,
		Handlers: map[string]queue.Handler{
			"bound": func(context.Context, *queue.Task) error { return nil },
		},
	})
	require.NoError(t, err)
	stop := run(t, w)
	require.Eventually(t, func() bool { return obs.completed.Load() == n }, 60*time.Second, 5*time.Millisecond)
	require.NoError(t, stop())

	obs.mu.Lock()
	claims := len(obs.requested)
	obs.mu.Unlock()
	// Every unit cycles through complete_and_take: 600 tasks at 5 units
	// take at least 120 completions, each of which claimed once before.
	// What is left: the first claim, and the last completions', which give
	// their units back once the lane is empty.
	require.LessOrEqual(t, claims, 10, "claims after %d completions of a type whose units the worker keeps", n)
	require.Equal(t, map[string]int{"completed": n}, e.StatusCounts())
	e.RequireInvariants()
}
