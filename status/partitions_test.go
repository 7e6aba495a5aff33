package status

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
)

const partitionConfig = `
queue "default" {}
queue "media" {}
task "digest" {
  partition {
    concurrency = 2
  }
}
task "render" {
  queue = "media"
  partition {
    by          = "payload.tenant_id"
    concurrency = 1
  }
}
task "email" {}
`

// enqueueKeyed adds n due tasks of taskType for key, due since ago (a
// PostgreSQL interval: how long they have waited).
func (e *env) enqueueKeyed(taskType, key string, n int, ago string) {
	e.T.Helper()
	e.Exec(`SELECT {{schema}}.enqueue($1, partition_key => $2, run_at => now() - $3::interval) FROM generate_series(1, $4)`,
		taskType, key, ago, n)
}

// partitionNamed returns the partitioned type name of s.
func partitionNamed(t *testing.T, s *Snapshot, name string) Partition {
	t.Helper()
	for _, p := range s.Partitions {
		if p.TaskType == name {
			return p
		}
	}
	t.Fatalf("no partitioned type %q in %+v", name, s.Partitions)
	return Partition{}
}

// keysOf lists the keys of waits, in their order.
func keysOf(waits []KeyWait) []string {
	out := []string{}
	for _, w := range waits {
		out = append(out, w.Key)
	}
	return out
}

// Partitioned types: keys with work, at their limit and over it, the tasks
// waiting for their key (in their queue's due and waiting tasks too), and
// the keys that waited longest, as the runtime changes them.
func TestReadPartitions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, partitionConfig)
	// digest (2 per key): a runs 2 with 3 waiting since 10 minutes, b 2
	// with 1 waiting since an hour, c 1 and nothing waits.
	e.enqueueKeyed("digest", "a", 5, "10 minutes")
	e.enqueueKeyed("digest", "b", 3, "1 hour")
	e.enqueueKeyed("digest", "c", 1, "1 second")
	e.Exec(`SELECT {{schema}}.enqueue('email')`)
	// render (1 per key, read from the payload): tenant 7 runs 1, 2 wait.
	e.Exec(`SELECT {{schema}}.enqueue('render', '{"tenant_id": 7}', run_at => now() - interval '1 minute') FROM generate_series(1, 3)`)

	type want struct {
		limit                        int
		keys, atLimit, over, waiting Count
		longest                      []string
		capped                       bool
		state                        string
	}
	check := func(t *testing.T, p Partition, w want) {
		t.Helper()
		require.Equal(t, w.limit, p.Limit, "limit")
		require.Equal(t, w.keys.Value, p.Keys.Value, "keys")
		require.Equal(t, w.keys.Exact, p.Keys.Exact, "keys exact")
		require.Equal(t, w.atLimit, p.AtLimit, "keys at the limit")
		require.Equal(t, w.over, p.OverLimit, "keys over the limit")
		require.Equal(t, w.waiting.Value, p.Waiting.Value, "waiting")
		require.Equal(t, w.waiting.Exact, p.Waiting.Exact, "waiting exact")
		require.Equal(t, w.longest, keysOf(p.LongestWaits), "longest waits")
		require.Equal(t, w.capped, p.WaitsCapped, "waits capped")
		require.Equal(t, w.state, p.State)
	}
	tests := []struct {
		name   string
		before func(e *env) // run before the read
		opts   Options
		want   map[string]want
	}{
		{
			name: "keys at their limit",
			want: map[string]want{
				"digest": {limit: 2, keys: exact(3), atLimit: exact(2), over: exact(0), waiting: exact(4),
					longest: []string{"b", "a"}, state: "binding"},
				"render": {limit: 1, keys: exact(1), atLimit: exact(1), over: exact(0), waiting: exact(2),
					longest: []string{"7"}, state: "binding"},
			},
		},
		{
			name: "one queue",
			opts: Options{Queue: "media"},
			want: map[string]want{
				"render": {limit: 1, keys: exact(1), atLimit: exact(1), over: exact(0), waiting: exact(2),
					longest: []string{"7"}, state: "binding"},
			},
		},
		{
			name: "counts beyond the limit",
			opts: Options{Limit: 2},
			want: map[string]want{
				// The first 3 keys are read: a, b, c; 2 shown, and the
				// waits of the keys read at their limit.
				"digest": {limit: 2, keys: Count{Value: 2}, atLimit: Count{Value: 2}, over: Count{Value: 0}, waiting: Count{Value: 2},
					longest: []string{"b", "a"}, capped: true, state: "binding"},
				"render": {limit: 1, keys: exact(1), atLimit: exact(1), over: exact(0), waiting: exact(2),
					longest: []string{"7"}, state: "binding"},
			},
		},
		{
			name: "a lowered per-key limit",
			before: func(e *env) {
				e.apply(`
queue "default" {}
queue "media" {}
task "digest" {
  partition {
    concurrency = 1
  }
}
task "render" {
  queue = "media"
  partition {
    by          = "payload.tenant_id"
    concurrency = 1
  }
}
task "email" {}
`)
			},
			want: map[string]want{
				"digest": {limit: 1, keys: exact(3), atLimit: exact(3), over: exact(2), waiting: exact(4),
					longest: []string{"b", "a"}, state: "draining"},
				"render": {limit: 1, keys: exact(1), atLimit: exact(1), over: exact(0), waiting: exact(2),
					longest: []string{"7"}, state: "binding"},
			},
		},
		{
			name: "a partition block removed while its tasks run",
			before: func(e *env) {
				// c's task runs; then digest loses its block: the waiting
				// tasks go on, the keys' units stay with the tasks holding
				// them, and the keys drain.
				e.Exec(`SELECT {{schema}}.register_worker('w1', 'host', 10)`)
				e.Exec(`SELECT count(*) FROM {{schema}}.claim('default', 'w1', 10)`)
				e.apply(`
queue "default" {}
queue "media" {}
task "digest" {}
task "render" {
  queue = "media"
  partition {
    by          = "payload.tenant_id"
    concurrency = 1
  }
}
task "email" {}
`)
			},
			want: map[string]want{
				"digest": {limit: 0, keys: exact(3), atLimit: exact(0), over: exact(0), waiting: exact(0),
					longest: []string{}, state: "draining"},
				"render": {limit: 1, keys: exact(1), atLimit: exact(1), over: exact(0), waiting: exact(2),
					longest: []string{"7"}, state: "binding"},
			},
		},
	}
	for _, tt := range tests {
		// One schema, each case changing it further: in order.
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before(e)
			}
			s := e.read(tt.opts)
			require.Len(t, s.Partitions, len(tt.want))
			for name, w := range tt.want {
				check(t, partitionNamed(t, s, name), w)
			}
			// A queue's due and waiting tasks count those waiting for
			// their key.
			if tt.opts.Limit == 0 {
				keyWaiting := map[string]int64{}
				for _, p := range s.Partitions {
					keyWaiting[p.Queue] += p.Waiting.Value
				}
				for _, q := range s.Queues {
					require.GreaterOrEqual(t, q.Waiting.Value, keyWaiting[q.Name], q.Name)
				}
			}
			var out bytes.Buffer
			require.NoError(t, Render(&out, s, RenderOptions{}))
			require.Contains(t, out.String(), "PER-KEY LIMITS")
		})
	}
}

// The longest waits, in detail: ages, units, waiting tasks per key, the
// queue's oldest due, and the text.
func TestReadKeyWaits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, partitionConfig)
	e.enqueueKeyed("digest", "a", 5, "10 minutes")
	e.enqueueKeyed("digest", "b", 3, "1 hour")
	e.enqueueKeyed("digest", "c", 1, "1 second")

	s := e.read(Options{})
	d := partitionNamed(t, s, "digest")
	require.Len(t, d.LongestWaits, 2)
	b, a := d.LongestWaits[0], d.LongestWaits[1]
	require.Equal(t, 2, b.Used)
	require.Equal(t, exact(1), b.Waiting)
	require.InDelta(t, 3600, b.Oldest.Seconds, 60)
	require.True(t, b.Oldest.Exact)
	require.Equal(t, exact(3), a.Waiting)
	require.InDelta(t, 600, a.Oldest.Seconds, 60)
	require.Equal(t, b.Oldest, *d.OldestWaiting)
	require.Equal(t, 2, d.KeysProbed)

	def := queueNamed(t, s, "default")
	require.Equal(t, exact(4), def.Waiting, "due tasks waiting for their key")
	require.Equal(t, exact(5), def.Ready, "the tasks their keys admitted")
	require.Equal(t, exact(9), def.Due)
	require.InDelta(t, 3600, def.OldestDue.Seconds, 60, "b's task has been due for an hour")

	var out bytes.Buffer
	require.NoError(t, Render(&out, s, RenderOptions{}))
	require.Regexp(t, `(?m)^  digest\s+default\s+2\s+3\s+2\s+4\s+1h(\d+m)?\s+binding$`, out.String())
	require.Contains(t, out.String(), "digest: 2 keys at the per-key limit of 2; 4 due tasks wait for a unit of their key. Longest waits:")
	require.Regexp(t, `(?m)^    b\s+2/2\s+1\s+1h(\d+m)?$`, out.String())
	require.Regexp(t, `(?m)^    a\s+2/2\s+3\s+10m(\d+s)?$`, out.String())
	require.NotContains(t, out.String(), "may have waited longer")
}

// A schema before per-key limits (version 18) reads without them, and its
// text has no section for them.
func TestReadBeforePartitions(t *testing.T) {
	t.Parallel()
	d := pgseqtest.New(t)
	pgseqtest.MigrateTo(t, d.Pool, d.Schema, 18)
	d.Exec(`INSERT INTO {{schema}}.queues (name, batch_size, max_retries,
	    backoff_initial, backoff_max, backoff_factor, backoff_jitter, worker_timeout, leader_lease, retention_completed,
	    retention_dead_letter) VALUES ('default', 10, 3, '1s', '10m', 2, 0.2, '30s', '15s', '7 days', '30 days')`)
	s, err := Read(bg, d.Pool, d.Schema, Options{})
	require.NoError(t, err)
	require.Equal(t, 18, s.SchemaVersion)
	require.Empty(t, s.Partitions)
	require.NotNil(t, s.Partitions, "an empty list in JSON")
	var out bytes.Buffer
	require.NoError(t, Render(&out, s, RenderOptions{}))
	require.NotContains(t, out.String(), "PER-KEY LIMITS")
}
