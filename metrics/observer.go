package metrics

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pgseq/pgseq/queue"
)

// Namespace prefixes every metric name.
const Namespace = "pgseq"

// Buckets of the histograms, in seconds. HandlerBuckets span 100 µs (a no-op
// handler) to two minutes; RoundTripBuckets span 100 µs (a claim on a local
// database) to 10 s (a call stuck behind a lock).
var (
	HandlerBuckets   = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	RoundTripBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
)

// Options configure New. The zero value records the worker's events only.
type Options struct {
	// Pool, when set, adds a SlotCollector reading Schema's slot usage and
	// limits at scrape time (see NewSlotCollector).
	Pool *pgxpool.Pool
	// Schema is the pgseq schema of the slot collector ("" means pgseq's
	// default, as in queue.Config).
	Schema string
	// HandlerBuckets overrides the handler duration histogram's buckets
	// (default HandlerBuckets). When the histogram is already registered
	// (another worker of the process), its buckets stay.
	HandlerBuckets []float64
}

// Observer records one queue.Worker's events in Prometheus metrics. It
// implements queue.Observer; create it with New and set it as the worker's
// Config.Observer. Its methods are safe for concurrent use and allocate
// nothing once a task type's series exist.
type Observer struct {
	v *vectors
	// q holds the metrics of the worker's queue, set by SettingsLoaded.
	q atomic.Pointer[queueMetrics]
	// mu serialises the writers of q and of its types.
	mu sync.Mutex
}

var _ queue.Observer = (*Observer)(nil)

// vectors are the registered metric vectors, shared by the Observers of a
// registry.
type vectors struct {
	claimed, handedOff, completed, failed, retried, deadLettered *prometheus.CounterVec
	released, lost, callErrors                                   *prometheus.CounterVec
	handler, claim, complete                                     *prometheus.HistogramVec
	inFlight                                                     *prometheus.GaugeVec
}

// queueMetrics holds the series of one queue.
type queueMetrics struct {
	queue                                      string
	claim, complete                            prometheus.Observer
	claimErrors, completeErrors, releaseErrors prometheus.Counter
	released, lost                             prometheus.Counter
	types                                      atomic.Pointer[map[string]*typeMetrics] // copy on write
}

// typeMetrics holds the series of one task type of a queue.
type typeMetrics struct {
	claimed, handedOff, completed, failed, retried, deadLettered prometheus.Counter
	handler                                                      prometheus.Observer
	inFlight                                                     prometheus.Gauge
}

// New registers a worker's metrics with reg (nil means
// prometheus.DefaultRegisterer) and returns the Observer that records them.
// Metrics already registered with reg by an earlier New (another worker of
// the process) are shared. With opts.Pool it also registers a SlotCollector,
// once per schema. It fails when reg holds other metrics of the same names.
func New(reg prometheus.Registerer, opts Options) (*Observer, error) {
	if reg == nil {
		reg = prometheus.DefaultRegisterer
	}
	handlerBuckets := opts.HandlerBuckets
	if len(handlerBuckets) == 0 {
		handlerBuckets = HandlerBuckets
	}
	qt := []string{"queue", "type"}
	q := []string{"queue"}
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: buckets}, labels)
	}
	v := &vectors{
		claimed: counter("tasks_claimed_total",
			"Tasks the worker received, by its claims or handed over by its completions.", qt),
		handedOff: counter("tasks_handed_off_total",
			"Tasks handed to the worker by its completions (complete_and_take: slot units passed straight to waiting tasks; complete_and_reserve: reserved successors started in place of finished tasks). Included in pgseq_tasks_claimed_total.", qt),
		completed: counter("tasks_completed_total",
			"Tasks whose handler succeeded; the worker completes them in its next batched completion.", qt),
		failed: counter("tasks_failed_total",
			"Task attempts whose handler failed (an error, a panic, or no handler), whatever became of the task.", qt),
		retried: counter("tasks_retried_total",
			"Failed attempts after which the task went back to pending for another attempt. Included in pgseq_tasks_failed_total.", qt),
		deadLettered: counter("tasks_dead_lettered_total",
			"Failed attempts after which the task moved to the dead letter, its retries used up. Included in pgseq_tasks_failed_total.", qt),
		released: counter("tasks_released_total",
			"Tasks handed back unexecuted at shutdown (pending again, attempt not counted).", q),
		lost: counter("tasks_lost_total",
			"Finished tasks the database no longer counted as the worker's when it completed or failed them (recovered by the leader; they run again), or whose failure could not be recorded.", q),
		callErrors: counter("worker_call_errors_total",
			"Failed database round trips of the worker, by call (claim, complete, release).", []string{"queue", "call"}),
		handler: histogram("handler_duration_seconds",
			"Handler run time, successful or not.", handlerBuckets, qt),
		claim: histogram("claim_duration_seconds",
			"Round-trip time of successful claims, one per claimed batch (empty claims included).", RoundTripBuckets, q),
		complete: histogram("complete_duration_seconds",
			"Round-trip time of successful batched completions (complete, or complete_and_take handing tasks over).", RoundTripBuckets, q),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "tasks_in_flight",
			Help: "Handlers running now."}, qt),
	}
	var errs []error
	for _, c := range []**prometheus.CounterVec{&v.claimed, &v.handedOff, &v.completed, &v.failed, &v.retried,
		&v.deadLettered, &v.released, &v.lost, &v.callErrors} {
		var err error
		*c, err = register(reg, *c)
		errs = append(errs, err)
	}
	for _, h := range []**prometheus.HistogramVec{&v.handler, &v.claim, &v.complete} {
		var err error
		*h, err = register(reg, *h)
		errs = append(errs, err)
	}
	var err error
	v.inFlight, err = register(reg, v.inFlight)
	errs = append(errs, err)
	if opts.Pool != nil {
		errs = append(errs, registerSlots(reg, opts.Pool, opts.Schema))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("metrics.New: %w", err)
	}
	return &Observer{v: v}, nil
}

// MustNew is New, panicking on error, for wiring a worker in one
// expression.
func MustNew(reg prometheus.Registerer, opts Options) *Observer {
	o, err := New(reg, opts)
	if err != nil {
		panic(err)
	}
	return o
}

// register registers c with reg; when an equal collector is registered
// already, it returns that one instead.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// Queue returns the queue the Observer's worker works; "" before its Run
// started.
func (o *Observer) Queue() string {
	if q := o.q.Load(); q != nil {
		return q.queue
	}
	return ""
}

// current returns the current queue's series; before the worker reported
// its queue, those of queue "".
func (o *Observer) current() *queueMetrics {
	if q := o.q.Load(); q != nil {
		return q
	}
	return o.setQueue("")
}

// setQueue switches to name's series unless they are current already.
func (o *Observer) setQueue(name string) *queueMetrics {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q := o.q.Load(); q != nil && q.queue == name {
		return q
	}
	v := o.v
	q := &queueMetrics{
		queue:          name,
		claim:          v.claim.WithLabelValues(name),
		complete:       v.complete.WithLabelValues(name),
		claimErrors:    v.callErrors.WithLabelValues(name, "claim"),
		completeErrors: v.callErrors.WithLabelValues(name, "complete"),
		releaseErrors:  v.callErrors.WithLabelValues(name, "release"),
		released:       v.released.WithLabelValues(name),
		lost:           v.lost.WithLabelValues(name),
	}
	q.types.Store(&map[string]*typeMetrics{})
	o.q.Store(q)
	return q
}

// forType returns the series of task type typ in the current queue,
// creating them on first use.
func (o *Observer) forType(typ string) *typeMetrics {
	q := o.current()
	if m := (*q.types.Load())[typ]; m != nil {
		return m
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	types := *q.types.Load()
	if m := types[typ]; m != nil {
		return m
	}
	v, name := o.v, q.queue
	m := &typeMetrics{
		claimed:      v.claimed.WithLabelValues(name, typ),
		handedOff:    v.handedOff.WithLabelValues(name, typ),
		completed:    v.completed.WithLabelValues(name, typ),
		failed:       v.failed.WithLabelValues(name, typ),
		retried:      v.retried.WithLabelValues(name, typ),
		deadLettered: v.deadLettered.WithLabelValues(name, typ),
		handler:      v.handler.WithLabelValues(name, typ),
		inFlight:     v.inFlight.WithLabelValues(name, typ),
	}
	next := make(map[string]*typeMetrics, len(types)+1)
	for k, tm := range types {
		next[k] = tm
	}
	next[typ] = m
	q.types.Store(&next)
	return m
}

// SettingsLoaded implements queue.Observer: it learns the worker's queue.
func (o *Observer) SettingsLoaded(s queue.Settings) {
	if q := o.q.Load(); q == nil || q.queue != s.Queue {
		o.setQueue(s.Queue)
	}
}

// Claimed implements queue.Observer.
func (o *Observer) Claimed(_, _ int, latency time.Duration, err error) {
	q := o.current()
	if err != nil {
		q.claimErrors.Inc()
		return
	}
	q.claim.Observe(latency.Seconds())
}

// Received implements queue.Observer. Claims return tasks mostly grouped by
// type, so it adds runs of one type at once.
func (o *Observer) Received(tasks []*queue.Task, handedOff bool) {
	for i := 0; i < len(tasks); {
		typ := tasks[i].Type
		j := i + 1
		for j < len(tasks) && tasks[j].Type == typ {
			j++
		}
		m := o.forType(typ)
		m.claimed.Add(float64(j - i))
		if handedOff {
			m.handedOff.Add(float64(j - i))
		}
		i = j
	}
}

// Started implements queue.Observer.
func (o *Observer) Started(t *queue.Task) { o.forType(t.Type).inFlight.Inc() }

// Handled implements queue.Observer.
func (o *Observer) Handled(t *queue.Task, took time.Duration, err error, abandoned bool) {
	m := o.forType(t.Type)
	m.inFlight.Dec()
	m.handler.Observe(took.Seconds())
	if err == nil && !abandoned {
		m.completed.Inc()
	}
}

// Completed implements queue.Observer.
func (o *Observer) Completed(n, accepted int, latency time.Duration, err error) {
	q := o.current()
	if err != nil {
		q.completeErrors.Inc()
		return
	}
	q.complete.Observe(latency.Seconds())
	if accepted < n {
		q.lost.Add(float64(n - accepted))
	}
}

// Failed implements queue.Observer.
func (o *Observer) Failed(t *queue.Task, status string, _ error, _ time.Duration) {
	m := o.forType(t.Type)
	m.failed.Inc()
	switch status {
	case "pending":
		m.retried.Inc()
	case "dead_letter":
		m.deadLettered.Inc()
	case "":
		o.current().lost.Inc()
	}
}

// HandedOff implements queue.Observer; Received counts the tasks by type.
func (o *Observer) HandedOff(int) {}

// Released implements queue.Observer.
func (o *Observer) Released(n int, _ time.Duration, err error) {
	q := o.current()
	if err != nil {
		q.releaseErrors.Inc()
		return
	}
	q.released.Add(float64(n))
}
