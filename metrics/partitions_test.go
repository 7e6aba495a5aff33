package metrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/metrics"
)

// gather collects reg into a scrape, as the endpoint would serve it.
func gather(t *testing.T, reg *prometheus.Registry) scrape {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	s := scrape{}
	for _, mf := range mfs {
		s[mf.GetName()] = mf
	}
	return s
}

// buckets returns a histogram's cumulative counts by upper bound.
func (s scrape) buckets(name, labels string) map[float64]uint64 {
	m := s.series(name, labels)
	if m == nil || m.Histogram == nil {
		return nil
	}
	out := map[float64]uint64{}
	for _, b := range m.GetHistogram().GetBucket() {
		out[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	return out
}

func partitioned(name, queue string, perKey int) catalog.TaskType {
	return catalog.TaskType{Name: name, Queue: queue, Partition: &catalog.Partition{Concurrency: perKey}}
}

// The partition figures of every partitioned type, read at scrape time:
// keys with work, at their limit, tasks waiting for their key, and each
// waiting key's wait in a histogram, never a series per key.
func TestPartitionMetrics(t *testing.T) {
	t.Parallel()
	d := pgseqtest.New(t)
	queues := []catalog.Queue{catalog.DefaultQueue("default"), catalog.DefaultQueue("media")}
	config := func(perKey int) catalog.State {
		return catalog.State{Queues: queues, TaskTypes: []catalog.TaskType{
			partitioned("digest", "default", perKey), partitioned("render", "media", 4), {Name: "plain", Queue: "default"},
		}}
	}
	d.Apply(config(2))
	enqueue := func(key string, n int, ago string) {
		t.Helper()
		d.Exec(`SELECT {{schema}}.enqueue('digest', partition_key => $1, run_at => now() - $2::interval) FROM generate_series(1, $3)`, key, ago, n)
	}
	// a: 2 running, 3 waiting for 8 minutes; b: 2, 1 waiting for 50
	// minutes; c: 1, nothing waits. render and plain: nothing.
	enqueue("a", 5, "8 minutes")
	enqueue("b", 3, "50 minutes")
	enqueue("c", 1, "1 second")
	d.Exec(`SELECT {{schema}}.enqueue('plain')`)

	reg := prometheus.NewRegistry()
	_, err := metrics.New(reg, metrics.Options{Pool: d.Pool, Schema: d.Schema})
	require.NoError(t, err)

	digest, render := "queue=default,type=digest", "queue=media,type=render"
	tests := []struct {
		name                   string
		before                 func()
		keys, atLimit, waiting float64
		// waits are the cumulative counts of the wait histogram's buckets
		// (the others: as the last one given up to it).
		waits map[float64]uint64
	}{
		{
			name: "keys at their limit", keys: 3, atLimit: 2, waiting: 4,
			waits: map[float64]uint64{300: 0, 600: 1, 1800: 1, 3600: 2, 86400: 2},
		},
		{
			name:   "a lowered per-key limit",
			before: func() { d.Apply(config(1)) },
			// c is at the new limit too, with nothing waiting.
			keys: 3, atLimit: 3, waiting: 4,
			waits: map[float64]uint64{300: 0, 600: 1, 3600: 2},
		},
		{
			name: "more keys at their limit than are observed",
			before: func() {
				d.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch(array_fill('digest'::text, ARRAY[2 * $1::int]),
				      partition_keys => (SELECT array_agg('k' || (g % $1::int) ORDER BY g) FROM generate_series(1, 2 * $1::int) g))`,
					metrics.KeyWaitsObserved)
			},
			// 1,000 more keys, each running one and one waiting since now.
			keys: 3 + metrics.KeyWaitsObserved, atLimit: 3 + metrics.KeyWaitsObserved, waiting: 4 + metrics.KeyWaitsObserved,
			// The first 1,000 keys at their limit in key order: a, b, c
			// (none waits) and 997 of the k's.
			waits: map[float64]uint64{60: metrics.KeyWaitsObserved - 3, 600: metrics.KeyWaitsObserved - 2, 3600: metrics.KeyWaitsObserved - 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before()
			}
			s := gather(t, reg)
			require.Equal(t, tt.keys, s.value("pgseq_partition_keys", digest), "keys")
			require.Equal(t, tt.atLimit, s.value("pgseq_partition_keys_at_limit", digest), "keys at their limit")
			require.Equal(t, tt.waiting, s.value("pgseq_partition_tasks_waiting", digest), "tasks waiting")
			got := s.buckets("pgseq_partition_key_wait_seconds", digest)
			for le, n := range tt.waits {
				require.Equal(t, n, got[le], "keys waiting at most %vs", le)
			}
			var top uint64
			for _, n := range tt.waits {
				top = max(top, n)
			}
			require.Equal(t, float64(top), s.count("pgseq_partition_key_wait_seconds", digest), "one observation per waiting key")

			// render has no key with work; plain no per-key limit.
			require.Equal(t, 0.0, s.value("pgseq_partition_keys", render))
			require.Equal(t, 0.0, s.count("pgseq_partition_key_wait_seconds", render))
			require.Nil(t, s.series("pgseq_partition_keys", "queue=default,type=plain"))
			require.Equal(t, 0.0, s.value("pgseq_slot_query_errors_total", ""))
			for _, mf := range s {
				for _, m := range mf.GetMetric() {
					for _, l := range m.GetLabel() {
						require.Contains(t, []string{"queue", "type", "le"}, l.GetName(), "%s: no label per key", mf.GetName())
					}
				}
			}
		})
	}

	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
}

// A schema before per-key limits (version 18): slot figures, no partition
// figures, no error.
func TestPartitionMetricsBeforePartitions(t *testing.T) {
	t.Parallel()
	d := pgseqtest.New(t)
	pgseqtest.MigrateTo(t, d.Pool, d.Schema, 18)
	d.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries,
	    backoff_initial, backoff_max, backoff_factor, backoff_jitter, worker_timeout, leader_lease, retention_completed,
	    retention_dead_letter) VALUES ('default', 10, 3, '1s', '10m', 2, 0.2, '30s', '15s', '7 days', '30 days');
	    INSERT INTO {{schema}}.task_types (name, queue, concurrency) VALUES ('render', 'default', 2)`)
	reg := prometheus.NewRegistry()
	_, err := metrics.New(reg, metrics.Options{Pool: d.Pool, Schema: d.Schema})
	require.NoError(t, err)
	s := gather(t, reg)
	require.Equal(t, 0.0, s.value("pgseq_slot_query_errors_total", ""))
	require.NotNil(t, s["pgseq_slots_limit"], "slot figures")
	for name := range s {
		require.NotContains(t, name, "partition", "no partition figures at version 18")
	}
}

// The partition figures need what the read level grants (partition_slots
// and tasks): a worker's role with the work level alone exports the slot
// figures without them, and no error.
func TestPartitionMetricsNeedTheReadLevel(t *testing.T) {
	t.Parallel()
	d := pgseqtest.New(t)
	worker := pgtest.NewRole(t, d.Pool, d.Schema, "worker")
	reader := pgtest.NewRole(t, d.Pool, d.Schema, "reader")
	d.Apply(catalog.State{
		Queues: []catalog.Queue{catalog.DefaultQueue("default")},
		TaskTypes: []catalog.TaskType{
			{Name: "digest", Queue: "default", Concurrency: 5, Partition: &catalog.Partition{Concurrency: 1}},
		},
		Access: []catalog.Grant{{Level: catalog.LevelRead, Role: reader.Name}, {Level: catalog.LevelWork, Role: worker.Name}},
	})
	d.Exec(`SELECT {{schema}}.enqueue('digest', partition_key => 'a') FROM generate_series(1, 2)`)
	for _, tt := range []struct {
		name       string
		role       pgtest.Role
		partitions bool
	}{
		{name: "work level", role: worker},
		{name: "read level", role: reader, partitions: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			_, err := metrics.New(reg, metrics.Options{Pool: pgtest.PoolAs(t, tt.role), Schema: d.Schema})
			require.NoError(t, err)
			s := gather(t, reg)
			require.Equal(t, 0.0, s.value("pgseq_slot_query_errors_total", ""))
			require.Equal(t, 5.0, s.value("pgseq_slots_limit", "queue=default,type=digest"))
			if !tt.partitions {
				require.Nil(t, s["pgseq_partition_keys"])
				return
			}
			require.Equal(t, 1.0, s.value("pgseq_partition_keys", "queue=default,type=digest"))
			require.Equal(t, 1.0, s.value("pgseq_partition_tasks_waiting", "queue=default,type=digest"))
		})
	}
}
