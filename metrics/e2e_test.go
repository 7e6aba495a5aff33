package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/metrics"
	"github.com/pgseq/pgseq/queue"
)

// scrape is one scrape of the metrics endpoint.
type scrape map[string]*dto.MetricFamily

func get(t *testing.T, url string) scrape {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test against a local server
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	require.NoError(t, err, string(body))
	return mfs
}

// series returns the series of name whose labels are labels ("k=v,k=v"),
// nil when there is none.
func (s scrape) series(name, labels string) *dto.Metric {
	mf := s[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.GetMetric() {
		var got []string
		for _, lp := range m.GetLabel() {
			got = append(got, lp.GetName()+"="+lp.GetValue())
		}
		sort.Strings(got)
		if strings.Join(got, ",") == labels {
			return m
		}
	}
	return nil
}

// value returns a counter's or gauge's value; -1 when the series is missing.
func (s scrape) value(name, labels string) float64 {
	m := s.series(name, labels)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return -1
}

// count returns a histogram's number of observations; -1 when missing.
func (s scrape) count(name, labels string) float64 {
	m := s.series(name, labels)
	if m == nil || m.Histogram == nil {
		return -1
	}
	return float64(m.GetHistogram().GetSampleCount())
}

// sum adds the values of every series of name.
func (s scrape) sum(name string) float64 {
	total := 0.0
	if mf := s[name]; mf != nil {
		for _, m := range mf.GetMetric() {
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

// A real worker drains tasks of a limited type (and others) against the
// database while the endpoint is scraped: the counters add up to what the
// database completed, the limit shows in the slot figures, and every metric
// carries its queue and type.
func TestWorkerMetricsEndToEnd(t *testing.T) {
	t.Parallel()
	d := pgseqtest.New(t)
	q := catalog.DefaultQueue("default")
	q.MaxRetries = 1
	q.Backoff.Initial = catalog.Duration(10 * time.Millisecond)
	q.Backoff.Max = catalog.Duration(10 * time.Millisecond)
	q.Backoff.Jitter = 0
	d.Apply(catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{
		{Name: "render", Queue: "default", Concurrency: 2},
		{Name: "plain", Queue: "default"},
		{Name: "flaky", Queue: "default"},
		{Name: "broken", Queue: "default"},
	}})
	const renders, plains, flakies = 30, 20, 2
	var batch []queue.NewTask
	for i := range renders + plains + flakies + 1 {
		typ := "broken"
		switch {
		case i < renders:
			typ = "render"
		case i < renders+plains:
			typ = "plain"
		case i < renders+plains+flakies:
			typ = "flaky"
		}
		batch = append(batch, queue.NewTask{Type: typ})
	}
	ctx := context.Background()
	_, err := queue.NewClient(d.Pool, d.Schema).EnqueueBatch(ctx, batch)
	require.NoError(t, err)

	reg := prometheus.NewRegistry()
	obs, err := metrics.New(reg, metrics.Options{Pool: d.Pool, Schema: d.Schema})
	require.NoError(t, err)
	srv, err := metrics.Listen("127.0.0.1:0", reg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	url := srv.URL()
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)

	// Before the worker runs: the slot figures already, no worker series.
	s := get(t, url)
	assert.Equal(t, 2.0, s.value("pgseq_slots_limit", "queue=default,type=render"))
	assert.Nil(t, s["pgseq_tasks_claimed_total"])

	var running, maxRunning atomic.Int64
	w, err := queue.NewWorker(queue.Config{
		Pool: d.Pool, Schema: d.Schema, PoolSize: 4, BatchSize: 10, Observer: obs,
		PollInterval: 10 * time.Millisecond,
		Handlers: map[string]queue.Handler{
			"render": func(context.Context, *queue.Task) error {
				n := running.Add(1)
				for m := maxRunning.Load(); n > m && !maxRunning.CompareAndSwap(m, n); m = maxRunning.Load() {
				}
				time.Sleep(10 * time.Millisecond)
				running.Add(-1)
				return nil
			},
			"plain":  func(context.Context, *queue.Task) error { return nil },
			"flaky":  func(context.Context, *queue.Task) error { return errors.New("flaky") },
			"broken": func(context.Context, *queue.Task) error { return queue.NoRetry(errors.New("broken")) },
		},
	})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = w.Run(runCtx) })
	t.Cleanup(func() { stop(); wg.Wait() })

	// Scrape during the drain. The counters lead the database (a task
	// counts when its handler succeeds, and is completed in the next batch),
	// never trail it; the limit holds in the slot and in-flight figures.
	completed := func() int {
		var n int
		d.Scalar(&n, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'completed'`)
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	scrapes, maxUsed := 0, 0.0
	for {
		inDB := completed()
		s = get(t, url)
		scrapes++
		got := s.sum("pgseq_tasks_completed_total")
		require.GreaterOrEqual(t, got, float64(inDB), "completed counters never trail the database")
		if used := s.value("pgseq_slots_used", "queue=default,type=render"); used >= 0 {
			require.LessOrEqual(t, used, 2.0, "slot units held within the limit")
			maxUsed = max(maxUsed, used)
		}
		if n := s.value("pgseq_tasks_in_flight", "queue=default,type=render"); n >= 0 {
			require.LessOrEqual(t, n, 2.0, "render handlers in flight within the limit")
		}
		dead := s.value("pgseq_tasks_dead_lettered_total", "queue=default,type=flaky")
		if got == renders+plains && inDB == renders+plains && dead == flakies {
			break
		}
		require.True(t, time.Now().Before(deadline), "drain did not finish: %v completed, %d in the database", got, inDB)
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	wg.Wait()
	require.NoError(t, runErr)
	require.LessOrEqual(t, maxRunning.Load(), int64(2))
	t.Logf("%d scrapes during the drain", scrapes)
	require.Positive(t, maxUsed, "a scrape during the drain saw render's slot units held")

	// After the drain every figure is exact.
	s = get(t, url)
	l := func(typ string) string { return "queue=default,type=" + typ }
	for typ, want := range map[string]float64{"render": renders, "plain": plains, "flaky": 2 * flakies, "broken": 1} {
		assert.Equal(t, want, s.value("pgseq_tasks_claimed_total", l(typ)), "claimed %s", typ)
	}
	assert.Equal(t, float64(renders), s.value("pgseq_tasks_completed_total", l("render")))
	assert.Equal(t, float64(plains), s.value("pgseq_tasks_completed_total", l("plain")))
	assert.Equal(t, 0.0, s.value("pgseq_tasks_completed_total", l("flaky")))
	assert.Equal(t, float64(completed()), s.sum("pgseq_tasks_completed_total"), "the counters add up to the tasks completed")
	handed := s.value("pgseq_tasks_handed_off_total", l("render"))
	assert.True(t, handed >= 0 && handed <= renders, "handed off %v", handed)
	assert.Equal(t, 2.0*flakies, s.value("pgseq_tasks_failed_total", l("flaky")))
	assert.Equal(t, float64(flakies), s.value("pgseq_tasks_retried_total", l("flaky")))
	assert.Equal(t, float64(flakies), s.value("pgseq_tasks_dead_lettered_total", l("flaky")))
	assert.Equal(t, 1.0, s.value("pgseq_tasks_failed_total", l("broken")))
	assert.Equal(t, 0.0, s.value("pgseq_tasks_retried_total", l("broken")))
	assert.Equal(t, 0.0, s.value("pgseq_tasks_dead_lettered_total", l("broken")))
	for _, typ := range []string{"render", "plain", "flaky", "broken"} {
		assert.Equal(t, 0.0, s.value("pgseq_tasks_in_flight", l(typ)), "in flight %s", typ)
	}
	assert.Equal(t, float64(renders), s.count("pgseq_handler_duration_seconds", l("render")))
	assert.Equal(t, float64(2*flakies), s.count("pgseq_handler_duration_seconds", l("flaky")))
	assert.Positive(t, s.count("pgseq_claim_duration_seconds", "queue=default"))
	assert.Positive(t, s.count("pgseq_complete_duration_seconds", "queue=default"))
	assert.Equal(t, 0.0, s.sum("pgseq_tasks_lost_total"))
	assert.Equal(t, 0.0, s.sum("pgseq_worker_call_errors_total"))

	// Slots: only the limited type, all units back.
	assert.Equal(t, 2.0, s.value("pgseq_slots_limit", l("render")))
	assert.Equal(t, 2.0, s.value("pgseq_slots_capacity", l("render")))
	assert.Equal(t, 0.0, s.value("pgseq_slots_used", l("render")))
	assert.Equal(t, 0.0, s.value("pgseq_slots_draining", l("render")))
	assert.Equal(t, -1.0, s.value("pgseq_slots_limit", l("plain")), "unlimited types have no slot figures")
	assert.Equal(t, 0.0, s.value("pgseq_slot_query_errors_total", ""))
	assert.GreaterOrEqual(t, s.value("pgseq_slot_query_duration_seconds", ""), 0.0)

	// Every name, the slot collector's too, follows the Prometheus
	// conventions (promlint).
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

// A slot query that fails exports no slot figures and counts an error; the
// scrape still succeeds.
func TestSlotCollectorQueryError(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	reg := prometheus.NewRegistry()
	_, err := metrics.New(reg, metrics.Options{Pool: pool, Schema: pgtest.Schema(t)}) // no such schema: never migrated
	require.NoError(t, err)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
		if mf.GetName() == "pgseq_slot_query_errors_total" {
			require.Equal(t, 1.0, mf.GetMetric()[0].GetCounter().GetValue())
		}
	}
	require.Equal(t, []string{"pgseq_slot_query_errors_total"}, names)
}

// One slot collector per schema: a second worker of the schema shares it;
// two schemas in one registry need a schema label each.
func TestSlotCollectorOncePerSchema(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	reg := prometheus.NewRegistry()
	_, err := metrics.New(reg, metrics.Options{Pool: pool, Schema: "one"})
	require.NoError(t, err)
	_, err = metrics.New(reg, metrics.Options{Pool: pool, Schema: "one"})
	require.NoError(t, err)
	_, err = metrics.New(reg, metrics.Options{Pool: pool, Schema: "two"})
	require.ErrorContains(t, err, `the slots of schema "one" are registered already`)

	reg = prometheus.NewRegistry()
	for _, schema := range []string{"one", "two"} {
		_, err = metrics.New(prometheus.WrapRegistererWith(prometheus.Labels{"schema": schema}, reg),
			metrics.Options{Pool: pool, Schema: schema})
		require.NoError(t, err)
	}
}

// A busy or malformed address is Listen's error.
func TestListenErrors(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	srv, err := metrics.Listen("127.0.0.1:0", reg)
	require.NoError(t, err)
	_, err = metrics.Listen(srv.Addr().String(), reg)
	require.ErrorContains(t, err, "address already in use")
	require.NoError(t, srv.Shutdown(context.Background()))
	require.NoError(t, srv.Shutdown(context.Background()), "twice")
	_, err = metrics.Listen("localhost", reg)
	require.ErrorContains(t, err, "missing port")
	_, err = metrics.Listen(fmt.Sprintf("127.0.0.1:%d", 70000), reg)
	require.Error(t, err)
}
