package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/queue"
)

// value returns a counter's or gauge's value.
func value(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	return testutil.ToFloat64(c)
}

// samples returns the number of observations of a histogram series.
func samples(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, labels) {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

func hasLabels(m *dto.Metric, labels map[string]string) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := labels[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(labels)
}

func TestObserverMovesEveryMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := New(reg, Options{})
	require.NoError(t, err)
	v := o.v
	o.SettingsLoaded(queue.Settings{Queue: "q", BatchSize: 10})
	require.Equal(t, "q", o.Queue())

	// Claims: a latency per successful claim, an error count per failure.
	o.Claimed(10, 3, 2*time.Millisecond, nil)
	o.Claimed(10, 0, time.Millisecond, nil)
	o.Claimed(10, 0, time.Second, errors.New("boom"))
	assert.Equal(t, uint64(2), samples(t, reg, "pgseq_claim_duration_seconds", map[string]string{"queue": "q"}))
	assert.Equal(t, 1.0, value(t, v.callErrors.WithLabelValues("q", "claim")))

	// Received tasks count by type; handed-off ones count in both.
	a1, a2, b := &queue.Task{ID: 1, Type: "a"}, &queue.Task{ID: 2, Type: "a"}, &queue.Task{ID: 3, Type: "b"}
	o.Received([]*queue.Task{a1, b, a2}, false)
	assert.Equal(t, 2.0, value(t, v.claimed.WithLabelValues("q", "a")))
	assert.Equal(t, 1.0, value(t, v.claimed.WithLabelValues("q", "b")))
	a3, a4 := &queue.Task{ID: 4, Type: "a"}, &queue.Task{ID: 5, Type: "a"}
	o.Received([]*queue.Task{a3, a4}, true)
	assert.Equal(t, 4.0, value(t, v.claimed.WithLabelValues("q", "a")))
	assert.Equal(t, 2.0, value(t, v.handedOff.WithLabelValues("q", "a")))
	assert.Equal(t, 0.0, value(t, v.handedOff.WithLabelValues("q", "b")))

	// In flight while handlers run; a success completes, an abandoned
	// success does not; every handler run is timed.
	o.Started(a1)
	o.Started(a2)
	o.Started(b)
	assert.Equal(t, 2.0, value(t, v.inFlight.WithLabelValues("q", "a")))
	assert.Equal(t, 1.0, value(t, v.inFlight.WithLabelValues("q", "b")))
	o.Handled(a1, 3*time.Millisecond, nil, false)
	o.Handled(a2, 4*time.Millisecond, nil, true)
	o.Handled(b, time.Millisecond, errors.New("failed"), false)
	assert.Equal(t, 0.0, value(t, v.inFlight.WithLabelValues("q", "a")))
	assert.Equal(t, 0.0, value(t, v.inFlight.WithLabelValues("q", "b")))
	assert.Equal(t, 1.0, value(t, v.completed.WithLabelValues("q", "a")))
	assert.Equal(t, 0.0, value(t, v.completed.WithLabelValues("q", "b")))
	assert.Equal(t, uint64(2), samples(t, reg, "pgseq_handler_duration_seconds", map[string]string{"queue": "q", "type": "a"}))
	assert.Equal(t, uint64(1), samples(t, reg, "pgseq_handler_duration_seconds", map[string]string{"queue": "q", "type": "b"}))

	// Failures by what became of the task.
	o.Failed(b, "pending", errors.New("x"), time.Millisecond)
	o.Failed(b, "dead_letter", errors.New("x"), time.Millisecond)
	o.Failed(b, "failed", errors.New("x"), time.Millisecond)
	o.Failed(b, "", errors.New("x"), time.Millisecond)
	assert.Equal(t, 4.0, value(t, v.failed.WithLabelValues("q", "b")))
	assert.Equal(t, 1.0, value(t, v.retried.WithLabelValues("q", "b")))
	assert.Equal(t, 1.0, value(t, v.deadLettered.WithLabelValues("q", "b")))
	assert.Equal(t, 1.0, value(t, v.lost.WithLabelValues("q")))

	// Completions: latency, tasks no longer the worker's, errors.
	o.Completed(10, 8, time.Millisecond, nil)
	o.Completed(5, 0, time.Millisecond, errors.New("boom"))
	assert.Equal(t, uint64(1), samples(t, reg, "pgseq_complete_duration_seconds", map[string]string{"queue": "q"}))
	assert.Equal(t, 3.0, value(t, v.lost.WithLabelValues("q")))
	assert.Equal(t, 1.0, value(t, v.callErrors.WithLabelValues("q", "complete")))

	// Releases at shutdown.
	o.HandedOff(2) // counted by Received
	o.Released(5, time.Millisecond, nil)
	o.Released(2, time.Millisecond, errors.New("boom"))
	assert.Equal(t, 5.0, value(t, v.released.WithLabelValues("q")))
	assert.Equal(t, 1.0, value(t, v.callErrors.WithLabelValues("q", "release")))

	// Every name follows the Prometheus conventions (promlint).
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

// Two workers of a process share a registry: each Observer labels its own
// queue, and the metrics are registered once.
func TestObserversShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	o1, err := New(reg, Options{})
	require.NoError(t, err)
	o2, err := New(reg, Options{})
	require.NoError(t, err)
	o1.SettingsLoaded(queue.Settings{Queue: "one"})
	o2.SettingsLoaded(queue.Settings{Queue: "two"})
	task := &queue.Task{Type: "a"}
	o1.Received([]*queue.Task{task}, false)
	o2.Received([]*queue.Task{task, task}, false)
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP pgseq_tasks_claimed_total Tasks the worker received, by its claims or handed over by its completions.
# TYPE pgseq_tasks_claimed_total counter
pgseq_tasks_claimed_total{queue="one",type="a"} 1
pgseq_tasks_claimed_total{queue="two",type="a"} 2
`), "pgseq_tasks_claimed_total"))
}

func TestNewRefusesConflictingMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "pgseq_tasks_claimed_total", Help: "someone else's"}))
	_, err := New(reg, Options{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "metrics.New")
	require.Panics(t, func() { MustNew(reg, Options{}) })
}

// Events before the worker reports its queue are labelled queue="".
func TestEventsBeforeSettingsLoaded(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := MustNew(reg, Options{})
	o.Started(&queue.Task{Type: "a"})
	assert.Equal(t, 1.0, value(t, o.v.inFlight.WithLabelValues("", "a")))
	assert.Equal(t, "", o.Queue())
}

// Once a type's series exist, recording allocates nothing.
func TestObserverDoesNotAllocate(t *testing.T) {
	o := MustNew(prometheus.NewRegistry(), Options{})
	o.SettingsLoaded(queue.Settings{Queue: "q"})
	tasks := []*queue.Task{{Type: "a"}, {Type: "a"}, {Type: "b"}}
	o.Received(tasks, false)
	allocs := testing.AllocsPerRun(100, func() {
		o.Claimed(10, 3, time.Millisecond, nil)
		o.Received(tasks, false)
		for _, t := range tasks {
			o.Started(t)
			o.Handled(t, time.Millisecond, nil, false)
		}
		o.Completed(3, 3, time.Millisecond, nil)
		o.Failed(tasks[0], "pending", nil, time.Millisecond)
	})
	assert.Zero(t, allocs)
}

func TestHandlerBuckets(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := MustNew(reg, Options{HandlerBuckets: []float64{1, 60}})
	o.Handled(&queue.Task{Type: "a"}, 2*time.Second, nil, false)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "pgseq_handler_duration_seconds" {
			b := mf.GetMetric()[0].GetHistogram().GetBucket()
			require.Len(t, b, 2)
			assert.Equal(t, []uint64{0, 1}, []uint64{b[0].GetCumulativeCount(), b[1].GetCumulativeCount()})
			return
		}
	}
	t.Fatal("no handler histogram")
}
