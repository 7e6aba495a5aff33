package status

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/queue"
	"github.com/pgseq/pgseq/spec"
)

var bg = context.Background()

// env is one test's pgseq schema on the shared test database.
type env struct {
	*pgseqtest.DB
	client *queue.Client
}

// newEnv applies the configuration src (HCL) to a new schema.
func newEnv(t testing.TB, src string) *env {
	t.Helper()
	e := &env{DB: pgseqtest.New(t)}
	e.client = queue.NewClient(e.Pool, e.Schema)
	e.apply(src)
	return e
}

// apply applies the configuration src (HCL), as pgseq apply --auto-approve.
func (e *env) apply(src string) {
	e.T.Helper()
	cfg, diags := spec.Parse(map[string][]byte{"config.hcl": []byte(src)})
	require.False(e.T, diags.HasErrors(), "%s", diags)
	e.Apply(cfg.State())
}

// admit gives the free units of limited types to their waiting tasks.
// enqueue gives a due task a unit at once only if its type's lock is free of
// an apply right now (else the task waits until the next claim or the
// leader's maintenance admits it), and the lock is per type name across the
// database: a parallel test applying a type of the same name can hold it.
// admit waits for the lock, so what the test seeded is admitted for sure.
func (e *env) admit(types ...string) {
	e.T.Helper()
	tx, err := e.Pool.Begin(bg)
	require.NoError(e.T, err)
	defer tx.Rollback(bg) //nolint:errcheck // no-op after commit
	e.On(tx).Exec(`SELECT {{schema}}.lock_types($1)`, types)
	e.On(tx).Exec(`SELECT {{schema}}.admit_types($1)`, types)
	require.NoError(e.T, tx.Commit(bg))
}

func (e *env) enqueue(taskType string, n int, opts ...queue.EnqueueOption) {
	e.T.Helper()
	for range n {
		_, err := e.client.Enqueue(bg, taskType, nil, opts...)
		require.NoError(e.T, err)
	}
}

func (e *env) read(opts Options) *Snapshot {
	e.T.Helper()
	s, err := Read(bg, e.Pool, e.Schema, opts)
	require.NoError(e.T, err)
	return s
}

func queueNamed(t *testing.T, s *Snapshot, name string) Queue {
	t.Helper()
	for _, q := range s.Queues {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("no queue %q in %+v", name, s.Queues)
	return Queue{}
}

func limitNamed(t *testing.T, s *Snapshot, name string) Limit {
	t.Helper()
	for _, l := range s.Limits {
		if l.TaskType == name {
			return l
		}
	}
	t.Fatalf("no limit of %q in %+v", name, s.Limits)
	return Limit{}
}

const workerConfig = `
queue "default" {
  worker_timeout = "30s"
}
queue "media" {
  worker_timeout = "10s"
}
task "email" {
  max_retries = 0
}
task "render" {
  queue       = "media"
  concurrency = 2
}
task "thumb" {
  queue       = "media"
  concurrency = 3
}
`

// While a worker runs a limited type at its limit: pending, running,
// waiting, the binding limit, the worker and the leader are what they are.
func TestReadWhileWorkerRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t, workerConfig)

	// The default queue: one task failed for good, one dead-lettered (no
	// retries), then 3 due and 2 scheduled for later.
	e.enqueue("email", 2)
	e.Exec(`SELECT {{schema}}.register_worker('manual', 'desk', 1)`)
	e.Exec(`SELECT count(*) FROM {{schema}}.claim('default', 'manual', 2)`)
	e.Exec(`SELECT {{schema}}.fail(min(id), 'manual', 'boom', false) FROM {{schema}}.tasks`)
	e.Exec(`SELECT {{schema}}.fail(max(id), 'manual', 'boom', true) FROM {{schema}}.tasks`)
	e.enqueue("email", 3)
	e.enqueue("email", 2, queue.WithRunAt(time.Now().Add(time.Hour)))

	// The media queue: 5 render tasks for a limit of 2, and one for later.
	e.enqueue("render", 5)
	e.enqueue("render", 1, queue.WithRunAt(time.Now().Add(time.Hour)))
	e.admit("render")

	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	w, err := queue.NewWorker(queue.Config{
		Pool: e.Pool, Schema: e.Schema, Queue: "media", WorkerID: "media-1", PoolSize: 4,
		Handlers: map[string]queue.Handler{
			"render": func(ctx context.Context, _ *queue.Task) error {
				started.Done()
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil
			},
		},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	stop := sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	defer stop() //nolint:errcheck // checked below when the test gets there
	started.Wait()

	// Until the worker has been elected too.
	var s *Snapshot
	require.Eventually(t, func() bool {
		s = e.read(Options{})
		return s.Leader != nil && s.Leader.Live
	}, 10*time.Second, 20*time.Millisecond)

	def := queueNamed(t, s, "default")
	require.Equal(t, exact(3), def.Ready)
	require.Equal(t, exact(0), def.Waiting)
	require.Equal(t, exact(3), def.Due)
	require.Equal(t, exact(2), def.Scheduled)
	require.Equal(t, exact(5), def.Pending)
	require.Equal(t, exact(0), def.Running)
	require.Equal(t, exact(1), def.Failed)
	require.Equal(t, exact(1), def.DeadLetter)
	require.NotNil(t, def.OldestDue)
	require.True(t, def.OldestDue.Exact)
	require.GreaterOrEqual(t, def.OldestDue.Seconds, 0.0)

	media := queueNamed(t, s, "media")
	require.Equal(t, exact(2), media.Running)
	require.Equal(t, exact(0), media.Ready)
	require.Equal(t, exact(3), media.Waiting)
	require.Equal(t, exact(1), media.Scheduled)
	require.Equal(t, exact(0), media.Failed)

	render := limitNamed(t, s, "render")
	require.Equal(t, "media", render.Queue)
	require.Equal(t, 2, render.Limit)
	require.Equal(t, exact(2), render.Running)
	require.Equal(t, 2, render.SlotGroups)
	require.EqualValues(t, 2, render.Capacity)
	require.EqualValues(t, 2, render.Used)
	require.EqualValues(t, 0, render.Free)
	require.Equal(t, exact(3), render.Waiting)
	require.NotNil(t, render.OldestWaiting)
	require.True(t, render.Binding)
	require.Equal(t, "binding", render.State)
	require.False(t, render.Draining)
	require.Empty(t, render.DrainingGroups)

	thumb := limitNamed(t, s, "thumb")
	require.Equal(t, "ok", thumb.State)
	require.False(t, thumb.Binding)
	require.EqualValues(t, 3, thumb.Free)
	require.Len(t, s.Limits, 2, "email has no limit")

	require.Equal(t, 2, s.Workers.Alive)
	require.Zero(t, s.Workers.Late)
	require.Zero(t, s.Workers.Dead)
	require.Equal(t, 30.0, s.Workers.TimeoutSeconds, "the longest worker_timeout")
	require.Len(t, s.Workers.List, 2)
	require.Equal(t, "manual", s.Workers.List[0].ID)
	require.False(t, s.Workers.List[0].Leader)
	mw := s.Workers.List[1]
	require.Equal(t, "media-1", mw.ID)
	require.Equal(t, "alive", mw.State)
	require.True(t, mw.Leader)
	require.EqualValues(t, 2, mw.Running)
	require.Equal(t, 4, mw.PoolSize)

	require.Equal(t, "media-1", s.Leader.WorkerID)
	require.Equal(t, "alive", s.Leader.WorkerState)
	require.NotNil(t, s.Leader.LeaseLeftSeconds)
	require.Greater(t, *s.Leader.LeaseLeftSeconds, 0.0)

	// --queue media: that queue and its types only.
	only := e.read(Options{Queue: "media"})
	require.Len(t, only.Queues, 1)
	require.Equal(t, "media", only.Queues[0].Name)
	require.Len(t, only.Limits, 2)
	require.Len(t, only.Workers.List, 2)

	// Released, the tasks finish and the waiting ones run: nothing waits.
	close(release)
	require.Eventually(t, func() bool {
		s = e.read(Options{Queue: "media"})
		return s.Queues[0].Due.Value == 0 && s.Queues[0].Running.Value == 0
	}, 10*time.Second, 20*time.Millisecond)
	render = limitNamed(t, s, "render")
	require.Equal(t, "ok", render.State)
	require.EqualValues(t, 0, render.Used)

	// Stopped, the worker resigns: the lease is given up.
	require.NoError(t, stop())
	s = e.read(Options{})
	require.NotNil(t, s.Leader)
	require.False(t, s.Leader.Live)
	require.Nil(t, s.Leader.LeaseUntil)
}

// A lowered limit with its units still held: the type drains, and the
// groups over capacity are named.
func TestReadDrainingLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `
queue "default" {}
task "render" { concurrency = 4 }
`)
	e.enqueue("render", 4)
	e.admit("render")
	e.Exec(`SELECT {{schema}}.register_worker('w1', 'host', 4)`)
	e.Exec(`SELECT count(*) FROM {{schema}}.claim('default', 'w1', 4)`)
	e.apply(`
queue "default" {}
task "render" { concurrency = 2 }
`)
	e.enqueue("render", 1)

	s := e.read(Options{})
	l := limitNamed(t, s, "render")
	require.Equal(t, 2, l.Limit)
	require.Equal(t, exact(4), l.Running)
	require.EqualValues(t, 2, l.Capacity)
	require.EqualValues(t, 4, l.Used)
	require.True(t, l.Draining)
	require.Equal(t, "draining", l.State)
	require.True(t, l.Binding, "the waiting task waits because of the limit")
	require.Equal(t, exact(1), l.Waiting)
	require.Equal(t, []SlotGroup{{3, 0, 1}, {4, 0, 1}}, l.DrainingGroups)
	require.Equal(t, 4, l.SlotGroups)
}

// Reserved successors (migration 036) show beside the type's waiting tasks
// and its worker's running ones, and in the text.
func TestReadReservedSuccessors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `
queue "default" {}
task "render" { concurrency = 2 }
`)
	e.enqueue("render", 6)
	e.Exec(`SELECT {{schema}}.register_worker('w1', 'host', 4)`)
	var first int64
	e.Scalar(&first, `SELECT min(id) FROM {{schema}}.claim('default', 'w1', 4)`)
	e.Exec(`SELECT count(*) FROM {{schema}}.complete_and_reserve(ARRAY[$1::bigint], 'w1', NULL, NULL, 4)`, first)

	s := e.read(Options{})
	l := limitNamed(t, s, "render")
	require.Equal(t, exact(2), l.Running)
	require.Equal(t, exact(2), l.Reserved, "one per task the worker runs")
	require.Equal(t, exact(1), l.Waiting)
	require.Len(t, s.Workers.List, 1)
	require.EqualValues(t, 2, s.Workers.List[0].Running)
	require.EqualValues(t, 2, s.Workers.List[0].Reserved)
	var b strings.Builder
	require.NoError(t, Render(&b, s, RenderOptions{}))
	require.Contains(t, b.String(), "1 (+2 reserved)")
}

// Workers alive, late (no heartbeat within the timeout) and dead; a lease
// that expired.
func TestReadWorkersAndLeader(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `queue "default" { worker_timeout = "20s" }`)
	s := e.read(Options{})
	require.Nil(t, s.Leader, "never elected")
	require.Empty(t, s.Workers.List)

	for _, id := range []string{"a", "b", "c"} {
		e.Exec(`SELECT {{schema}}.register_worker($1, 'host-' || $1, 2, 'v1')`, id)
	}
	e.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'b'`)
	e.Exec(`UPDATE {{schema}}.workers SET dead_at = now() WHERE id = 'c'`)
	e.Exec(`SELECT {{schema}}.elect_leader('a')`)

	s = e.read(Options{})
	require.Equal(t, 1, s.Workers.Alive)
	require.Equal(t, 1, s.Workers.Late)
	require.Equal(t, 1, s.Workers.Dead)
	require.Equal(t, 20.0, s.Workers.TimeoutSeconds)
	states := map[string]string{}
	for _, w := range s.Workers.List {
		states[w.ID] = w.State
	}
	require.Equal(t, map[string]string{"a": "alive", "b": "late", "c": "dead"}, states)
	require.Equal(t, "v1", s.Workers.List[0].Version)
	require.InDelta(t, 60, s.Workers.List[1].HeartbeatAgeSeconds, 5)
	require.NotNil(t, s.Workers.List[2].DeadAt)
	require.True(t, s.Leader.Live)
	require.True(t, s.Workers.List[0].Leader)

	e.Exec(`UPDATE {{schema}}.leader SET lease_until = now() - interval '10 seconds'`)
	s = e.read(Options{})
	require.False(t, s.Leader.Live)
	require.Less(t, *s.Leader.LeaseLeftSeconds, -9.0)
	require.False(t, s.Workers.List[0].Leader, "an expired lease leads nothing")

	// Only the most recently dead are listed; all are counted.
	for i := range deadWorkersListed + 3 {
		id := "dead-" + string(rune('a'+i))
		e.Exec(`SELECT {{schema}}.register_worker($1, 'h', 1)`, id)
		e.Exec(`UPDATE {{schema}}.workers SET dead_at = now() WHERE id = $1`, id)
	}
	s = e.read(Options{})
	require.Equal(t, deadWorkersListed+4, s.Workers.Dead)
	require.Len(t, s.Workers.List, 2+deadWorkersListed)
}

func TestReadCounters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `
queue "default" {}
counter "invoice" {
  start              = 1000
  idempotency_window = "10m"
}
counter "ticket" {}
`)
	e.Exec(`SELECT {{schema}}.next_value('ticket', 'a')`)
	e.Exec(`SELECT {{schema}}.next_value('ticket', 'a')`)
	e.Exec(`SELECT {{schema}}.next_value('ticket', 'b')`)
	e.Exec(`SELECT {{schema}}.reserve('invoice', '', 'k1')`)
	e.Exec(`SELECT {{schema}}.reserve('invoice', '', 'k2')`)
	e.Exec(`SELECT {{schema}}.commit_reservation({{schema}}.reserve('invoice', '', 'k3'), 'order-3')`)

	s := e.read(Options{})
	require.Len(t, s.Counters, 2)
	inv, tic := s.Counters[0], s.Counters[1]
	require.Equal(t, "invoice", inv.Name)
	require.Equal(t, "standalone", inv.Kind)
	require.True(t, inv.TwoPhase)
	require.Equal(t, exact(1), inv.Scopes)
	require.Equal(t, &Count{Value: 1000, Exact: true}, inv.Highest)
	require.Equal(t, exact(2), inv.PendingReservations)
	require.NotNil(t, inv.OldestReservation)

	require.Equal(t, "ticket", tic.Name)
	require.False(t, tic.TwoPhase)
	require.Equal(t, exact(2), tic.Scopes)
	require.Equal(t, &Count{Value: 2, Exact: true}, tic.Highest)
	require.Equal(t, exact(0), tic.PendingReservations)
	require.Nil(t, tic.OldestReservation)
}

// Beyond the limit, counts are lower bounds with the planner's estimate.
func TestReadCountsBeyondTheLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `
queue "default" {}
task "email" {}
task "render" { concurrency = 1 }
`)
	e.enqueue("email", 8)
	e.enqueue("email", 7, queue.WithRunAt(time.Now().Add(time.Hour)))
	e.enqueue("render", 9) // one open, eight waiting
	e.admit("render")
	e.Exec(`ANALYZE {{schema}}.tasks`)

	s := e.read(Options{Limit: 5})
	require.Equal(t, 5, s.CountLimit)
	q := queueNamed(t, s, "default")
	require.Equal(t, int64(5), q.Ready.Value)
	require.False(t, q.Ready.Exact)
	require.Equal(t, int64(5), q.Waiting.Value)
	require.False(t, q.Waiting.Exact)
	require.Equal(t, int64(10), q.Due.Value)
	require.False(t, q.Due.Exact)
	require.Equal(t, int64(5), q.Scheduled.Value)
	require.False(t, q.Scheduled.Exact)
	require.Equal(t, int64(15), q.Pending.Value)
	for _, c := range []Count{q.Ready, q.Waiting, q.Due, q.Scheduled, q.Pending} {
		if c.Estimate != nil {
			require.Greater(t, *c.Estimate, c.Value, "an estimate is only kept above the lower bound")
		}
	}
	// The planner knows the table (ANALYZE): 9 due email tasks and 1 render.
	require.NotNil(t, q.Ready.Estimate)
	require.NotNil(t, s.TasksEstimate)
	require.EqualValues(t, 24, *s.TasksEstimate)

	s = e.read(Options{})
	q = queueNamed(t, s, "default")
	require.Equal(t, exact(9), q.Ready)
	require.Equal(t, exact(8), q.Waiting)
	require.Equal(t, exact(7), q.Scheduled)
	require.Equal(t, exact(24), q.Pending)
}

// More distinct priorities than are read: the counts and the oldest age
// are lower bounds.
func TestReadManyPriorities(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `
queue "default" {}
task "email" {}
`)
	for p := range maxPriorities + 5 {
		e.enqueue("email", 1, queue.WithPriority(p))
	}
	q := queueNamed(t, e.read(Options{}), "default")
	require.Equal(t, Count{Value: maxPriorities}, q.Ready)
	require.False(t, q.OldestDue.Exact)

	e.Exec(`DELETE FROM {{schema}}.tasks WHERE priority < 10`)
	q = queueNamed(t, e.read(Options{}), "default")
	require.Equal(t, exact(maxPriorities-5), q.Ready)
	require.True(t, q.OldestDue.Exact)
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	_, err := Read(bg, pool, pgtest.Schema(t), Options{})
	require.ErrorIs(t, err, ErrNotMigrated)
	require.ErrorContains(t, err, "pgseq apply")

	e := newEnv(t, `
queue "default" {}
queue "media" {}
`)
	_, err = Read(bg, pool, e.Schema, Options{Queue: "nope"})
	require.ErrorIs(t, err, ErrUnknownQueue)
	require.ErrorContains(t, err, `"nope"`)
	require.ErrorContains(t, err, "declared: default, media")

	e.Exec(`UPDATE {{schema}}.schema_migrations SET version = 99 WHERE version = (SELECT max(version) FROM {{schema}}.schema_migrations)`)
	_, err = Read(bg, pool, e.Schema, Options{})
	require.True(t, errors.Is(err, migrations.ErrNewerSchema), "%v", err)
}
