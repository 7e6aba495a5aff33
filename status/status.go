package status

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	pathpkg "path"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/migrations"
)

// queries holds the queries, one a file in sql/, and the fragments they
// share, in fragments/.
//
//go:embed sql/*.sql fragments/*.sql
var queries embed.FS

// query returns the named query of sql/ for schema.
func query(name, schema string) string {
	sql, ok := rendered[name]
	if !ok {
		panic(fmt.Sprintf("status: no query %s", name))
	}
	return migrations.Render(sql, schema)
}

// rendered holds the queries of sql/ by name, their templates executed
// once: they are text/template templates, in which {{template "lane_counts"
// lane WHERE LATER}} puts in the fragment of fragments/lane_counts.sql for a
// lane (sqlLane), and {{schema}} stays {{schema}}, for migrations.Render.
var rendered = renderQueries()

func renderQueries() map[string]string {
	paths, err := fs.Glob(queries, "sql/*.sql")
	if err != nil {
		panic(fmt.Sprintf("status: listing queries: %v", err))
	}
	out := make(map[string]string, len(paths))
	for _, path := range paths {
		t := template.New(pathpkg.Base(path)).Funcs(template.FuncMap{
			"schema": func() string { return "{{schema}}" },
			"lane":   func(where string, later bool) sqlLane { return sqlLane{Where: where, Later: later} },
		})
		t, err := t.ParseFS(queries, path, "fragments/*.sql")
		if err != nil {
			panic(fmt.Sprintf("status: query %s: %v", path, err))
		}
		var b strings.Builder
		if err := t.Execute(&b, nil); err != nil {
			panic(fmt.Sprintf("status: query %s: %v", path, err))
		}
		out[strings.TrimSuffix(pathpkg.Base(path), ".sql")] = b.String()
	}
	return out
}

// sqlLane is the argument of the lane_counts fragment: Where selects the
// lane's pending tasks t (a partial index's predicate, so that they are
// read through that index only), and Later asks for the count of those not
// due yet too.
type sqlLane struct {
	Where string
	Later bool
}

// FormatVersion is the version of the JSON document: MAJOR.MINOR, the major
// changing only when a field changes meaning or goes, the minor when
// fields are added (1.1: partitions, and a queue's waiting tasks count
// those waiting for their partition key).
const FormatVersion = "1.1"

const (
	// DefaultLimit is how far a count of tasks is exact: beyond it the count
	// is a lower bound with the planner's estimate beside it.
	DefaultLimit = 10_000
	// maxPriorities is how many distinct priorities of a queue (or a lane)
	// are read; beyond them counts and ages are lower bounds.
	maxPriorities = 100
	// runningLimit bounds the running tasks read (in practice all of them:
	// as many as the workers' pools hold).
	runningLimit = 100_000
	// deadWorkersListed is how many of the workers declared dead are listed
	// (the most recent); all are counted.
	deadWorkersListed = 10
	// MinSchemaVersion is the oldest schema Read understands (slot units,
	// migration 5).
	MinSchemaVersion = 5
)

// ErrNotMigrated means the schema has no pgseq objects (yet).
var ErrNotMigrated = errors.New("no pgseq objects yet")

// ErrUnknownQueue means Options.Queue names no declared queue.
var ErrUnknownQueue = errors.New("unknown queue")

// Options control Read.
type Options struct {
	// Queue restricts the queues and the limited task types to one queue;
	// "" means all. Workers, the leader and counters are always read.
	Queue string
	// Limit is how far counts of tasks are exact (default DefaultLimit).
	Limit int
}

// Snapshot is the live state of a pgseq schema at one moment. Its JSON
// encoding is pgseq status --json.
type Snapshot struct {
	FormatVersion string `json:"format_version"`
	Schema        string `json:"schema"`
	SchemaVersion int    `json:"schema_version"`
	// At is the database's clock when the snapshot was taken; every age is
	// measured against it.
	At time.Time `json:"at"`
	// Queue is the queue the snapshot was restricted to, if any.
	Queue string `json:"queue,omitempty"`
	// CountLimit is how far counts are exact.
	CountLimit int `json:"count_limit"`
	// TasksEstimate is the planner's estimate of the rows in the tasks table
	// (pg_class.reltuples), null before the table was first analyzed.
	TasksEstimate *int64  `json:"tasks_estimate"`
	Queues        []Queue `json:"queues"`
	Limits        []Limit `json:"limits"`
	// Partitions are the task types with per-key limits (schema version 19
	// and later), or whose keys still hold units after their partition
	// block was removed.
	Partitions []Partition `json:"partitions"`
	Workers    Workers     `json:"workers"`
	Leader     *Leader     `json:"leader"`
	Counters   []Counter   `json:"counters"`
}

// Count is a number of tasks (or scopes, reservations...). When Exact is
// false, Value is a lower bound — the figure is at least Value — and
// Estimate, when present, is the planner's estimate of the whole figure
// (always above Value).
type Count struct {
	Value    int64  `json:"value"`
	Exact    bool   `json:"exact"`
	Estimate *int64 `json:"estimate,omitempty"`
}

// exact is a count known exactly.
func exact(n int64) Count { return Count{Value: n, Exact: true} }

// capped is a count read with a LIMIT of limit+1: limit+1 rows read means
// there are more than limit.
func capped(n int64, limit int) Count {
	if n > int64(limit) {
		return Count{Value: int64(limit)}
	}
	return exact(n)
}

// Add returns the sum of two counts: exact if both are; the estimate of an
// inexact sum adds the parts' estimates (or values, for parts without one).
func (c Count) Add(d Count) Count {
	s := Count{Value: c.Value + d.Value, Exact: c.Exact && d.Exact}
	if !s.Exact && (c.Estimate != nil || d.Estimate != nil) {
		s.setEstimate(c.best() + d.best())
	}
	return s
}

// best is the estimate when there is one, else the value.
func (c Count) best() int64 {
	if c.Estimate != nil {
		return *c.Estimate
	}
	return c.Value
}

// setEstimate keeps an estimate only for an inexact count, and only above
// its lower bound (else it tells nothing).
func (c *Count) setEstimate(e int64) {
	c.Estimate = nil
	if !c.Exact && e > c.Value {
		c.Estimate = &e
	}
}

// Age is when something became due (or was created) and how long ago that
// was by the snapshot's clock. When Exact is false the true oldest may be
// older (a queue with more distinct priorities than are read).
type Age struct {
	At      time.Time `json:"at"`
	Seconds float64   `json:"age_seconds"`
	Exact   bool      `json:"exact"`
}

// Queue is one queue's tasks. Pending = Due + Scheduled; Due = Ready +
// Waiting.
type Queue struct {
	Name    string `json:"name"`
	Pending Count  `json:"pending"`
	// Due are the pending tasks whose time has come.
	Due Count `json:"due"`
	// Ready are the due tasks a claim takes now: unlimited, or of a limited
	// type and holding a unit.
	Ready Count `json:"ready"`
	// Waiting are the due tasks waiting for a unit: of their limited
	// type's, or of their partition key's.
	Waiting Count `json:"waiting"`
	// Scheduled are the pending tasks due later (scheduled, or retries
	// waiting out their backoff).
	Scheduled Count `json:"scheduled"`
	// Running are the tasks running (reserved successors not counted).
	Running    Count `json:"running"`
	Failed     Count `json:"failed"`
	DeadLetter Count `json:"dead_letter"`
	// OldestDue is the due task that has waited longest, null when none is due.
	OldestDue *Age `json:"oldest_due"`
}

// Limit is one limited task type.
type Limit struct {
	TaskType string `json:"task_type"`
	Queue    string `json:"queue"`
	// Limit is the declared concurrency; 0 when the type has no limit any
	// more but still has slot groups.
	Limit   int   `json:"limit"`
	Running Count `json:"running"`
	// SlotGroups, Capacity and Used describe the slot groups: Used counts
	// the units held, by running tasks and by admitted tasks not claimed yet.
	SlotGroups int   `json:"slot_groups"`
	Capacity   int64 `json:"capacity"`
	Used       int64 `json:"used"`
	Free       int64 `json:"free"`
	// Draining: a group is over capacity after a lowered limit, and the
	// type admits nothing until its running tasks are below the new limit.
	Draining       bool        `json:"draining"`
	DrainingGroups []SlotGroup `json:"draining_groups"`
	// Waiting are the type's due tasks waiting for a unit.
	Waiting       Count `json:"waiting"`
	OldestWaiting *Age  `json:"oldest_waiting"`
	// Reserved are due tasks taken from the lane by workers as reserved
	// successors (no unit, counted in no limit): each starts in place of a
	// task of the type that ends, on its unit.
	Reserved Count `json:"reserved"`
	// Binding: tasks wait because the limit binds — every unit is in use,
	// or the type is draining.
	Binding bool `json:"binding"`
	// State sums it up: "binding" (tasks wait, every unit in use),
	// "draining" (over a lowered limit), "admitting" (tasks wait although
	// units are free: the next claim or the leader's maintenance admits
	// them) or "ok".
	State string `json:"state"`
}

// SlotGroup is one slot group over capacity.
type SlotGroup struct {
	Group    int `json:"slot_group"`
	Capacity int `json:"capacity"`
	Used     int `json:"used"`
}

// Workers are the registered workers.
type Workers struct {
	// TimeoutSeconds is the longest worker_timeout of the queues: a worker
	// whose last heartbeat is older is "late", and the leader's maintenance
	// declares it dead.
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Alive          int     `json:"alive"`
	Late           int     `json:"late"`
	Dead           int     `json:"dead"`
	// List holds every worker not declared dead and the most recently
	// declared dead ones (up to 10), by id.
	List []Worker `json:"list"`
}

// Worker is one registered worker.
type Worker struct {
	ID            string    `json:"id"`
	Hostname      string    `json:"hostname"`
	PoolSize      int       `json:"pool_size"`
	Version       string    `json:"version,omitempty"`
	StartedAt     time.Time `json:"started_at"`
	LastHeartbeat time.Time `json:"last_heartbeat"`
	// HeartbeatAgeSeconds is how long ago the last heartbeat was.
	HeartbeatAgeSeconds float64 `json:"heartbeat_age_seconds"`
	// State is "alive", "late" (no heartbeat for longer than the timeout,
	// not declared dead yet) or "dead" (declared dead: its tasks were
	// recovered).
	State  string     `json:"state"`
	DeadAt *time.Time `json:"dead_at,omitempty"`
	// Running is how many tasks it runs; Reserved how many reserved
	// successors it holds beside them (see Limit.Reserved).
	Running  int64 `json:"running"`
	Reserved int64 `json:"reserved"`
	Leader   bool  `json:"leader"`
}

// Leader is the leader lease: who holds (or last held) it.
type Leader struct {
	WorkerID string `json:"worker_id"`
	// LeaseUntil is null when the lease was given up.
	LeaseUntil *time.Time `json:"lease_until"`
	// Live: the lease has not expired; the worker leads.
	Live bool `json:"live"`
	// LeaseLeftSeconds is how long the lease still runs (negative: expired
	// that long ago), null when given up.
	LeaseLeftSeconds *float64   `json:"lease_left_seconds"`
	ElectedAt        *time.Time `json:"elected_at"`
	// WorkerState is the leader's state in the workers table ("alive",
	// "late", "dead"), "" when it is not registered any more.
	WorkerState string `json:"worker_state"`
}

// Counter is one counter.
type Counter struct {
	Name string `json:"name"`
	// Kind is "attached" (numbers a table's rows) or "standalone".
	Kind   string `json:"kind"`
	Table  string `json:"table,omitempty"`
	Column string `json:"column,omitempty"`
	// Scopes numbered so far.
	Scopes Count `json:"scopes"`
	// Highest is the highest value issued (a lower bound when the scopes
	// were not all read), null when none was.
	Highest *Count `json:"highest"`
	// TwoPhase: the counter has an idempotency_window (reserve, then commit).
	TwoPhase bool `json:"two_phase"`
	// PendingReservations are reservations not committed yet, and the
	// oldest of them.
	PendingReservations Count `json:"pending_reservations"`
	OldestReservation   *Age  `json:"oldest_reservation"`
}

// Write writes the snapshot as one JSON document, indented, ending with a
// newline.
func (s *Snapshot) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteLine writes the snapshot as one line of JSON (JSON Lines).
func (s *Snapshot) WriteLine(w io.Writer) error {
	return json.NewEncoder(w).Encode(s)
}

// Read takes a snapshot of schema's live state, in one read-only
// transaction. A schema without pgseq objects is ErrNotMigrated; an unknown
// Options.Queue is ErrUnknownQueue.
func Read(ctx context.Context, db inspect.TxBeginner, schema string, opts Options) (*Snapshot, error) {
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	var s *Snapshot
	err := inspect.InSnapshot(ctx, db, func(q inspect.Querier) error {
		var err error
		s, err = read(ctx, q, schema, opts)
		return err
	})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" {
			return nil, fmt.Errorf("%w\npgseq status reads every table of schema %q: it needs the read level for this role "+
				"(in the configuration: access { read = [\"ROLE\"] }, then pgseq apply), or the schema owner's role", err, schema)
		}
		return nil, err
	}
	return s, nil
}

// settings are the planner settings of Read's transaction. Every query is
// written for a bounded index path (a range of a partial index, read up to
// the count limit), so sequential and bitmap scans — which read every
// matching row before the LIMIT — are off: a misestimate must not turn a
// read of 10,000 index entries into a read of the table (the planner still
// takes them where no index serves, as for the small tables). And JIT is
// off: compiling these short queries would cost more than running them.
var settings = []string{
	`SET LOCAL jit = off`,
	`SET LOCAL enable_seqscan = off`,
	`SET LOCAL enable_bitmapscan = off`,
}

func read(ctx context.Context, q inspect.Querier, schema string, opts Options) (*Snapshot, error) {
	for _, s := range settings {
		if _, err := q.Exec(ctx, s); err != nil {
			return nil, err
		}
	}
	version, err := migrations.Version(ctx, q, schema)
	if err != nil {
		return nil, err
	}
	switch {
	case version == 0:
		return nil, fmt.Errorf("schema %q has %w: create them with pgseq apply (or pgseq migrate)", schema, ErrNotMigrated)
	case version > migrations.Latest():
		return nil, fmt.Errorf("%w: schema %q is at version %d, this pgseq knows up to %d; upgrade pgseq",
			migrations.ErrNewerSchema, schema, version, migrations.Latest())
	case version < MinSchemaVersion:
		return nil, fmt.Errorf("schema %q is at version %d; pgseq status reads version %d and later: upgrade it with pgseq migrate",
			schema, version, MinSchemaVersion)
	}
	s := &Snapshot{FormatVersion: FormatVersion, Schema: schema, SchemaVersion: version, Queue: opts.Queue,
		CountLimit: opts.Limit, Queues: []Queue{}, Limits: []Limit{}, Partitions: []Partition{}, Counters: []Counter{}}
	s.Workers.List = []Worker{}
	var queue any // the $1 of the per-queue queries: NULL for all
	if opts.Queue != "" {
		queue = opts.Queue
		if err := checkQueue(ctx, q, schema, opts.Queue); err != nil {
			return nil, err
		}
	}
	r := &reader{ctx: ctx, q: q, schema: schema, limit: opts.Limit, queue: queue, s: s}
	for _, step := range []struct {
		what string
		fn   func() error
	}{
		{"reading the clock", r.clock},
		{"counting running tasks", r.running},
		{"counting pending tasks", r.pending},
		{"counting finished tasks", r.finished},
		{"reading slot groups", r.limits},
		{"reading workers", r.workers},
		{"reading the leader", r.leader},
		{"reading counters", r.counters},
	} {
		if err := step.fn(); err != nil {
			return nil, fmt.Errorf("%s: %w", step.what, err)
		}
	}
	return s, nil
}

// checkQueue returns ErrUnknownQueue, naming the declared queues, when name
// is not one.
func checkQueue(ctx context.Context, q inspect.Querier, schema, name string) error {
	var names []string
	if err := q.QueryRow(ctx, migrations.Render(`SELECT coalesce(array_agg(name ORDER BY name), '{}') FROM {{schema}}.queues`, schema)).Scan(&names); err != nil {
		return err
	}
	for _, n := range names {
		if n == name {
			return nil
		}
	}
	declared := "none is declared"
	if len(names) > 0 {
		declared = "declared: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%w %q in schema %q (%s)", ErrUnknownQueue, name, schema, declared)
}

// reader holds what the reads of one snapshot share.
type reader struct {
	ctx    context.Context
	q      inspect.Querier
	schema string
	limit  int
	queue  any
	s      *Snapshot

	// running tasks per queue, per type and per worker.
	runQueue, runType, runWorker map[string]int64
	resType, resWorker           map[string]int64
	runExact                     bool
	// lanes holds the due waiting tasks per task type.
	lanes map[string]lane
}

// lane is the due part of a task type's lane: its tasks waiting for a unit.
type lane struct {
	queue   string
	waiting Count
	oldest  *Age
}

func (r *reader) sql(name string) string {
	if r.s.SchemaVersion < inspect.PartitionsVersion {
		if _, ok := rendered[name+beforePartitions]; ok {
			name += beforePartitions
		}
	}
	return query(name, r.schema)
}

// beforePartitions ends the name of a query of sql/ that reads the
// schemas before partition keys (inspect.PartitionsVersion) in place of
// the query without it.
const beforePartitions = "_before_partitions"

// age is the age of at by the snapshot's clock.
func (r *reader) age(at time.Time, exact bool) *Age {
	return &Age{At: at, Seconds: r.s.At.Sub(at).Seconds(), Exact: exact}
}

func (r *reader) clock() error {
	var reltuples int64
	err := r.q.QueryRow(r.ctx, r.sql("clock")).Scan(&r.s.At, &reltuples, &r.s.Workers.TimeoutSeconds)
	if err != nil {
		return err
	}
	if reltuples >= 0 {
		r.s.TasksEstimate = &reltuples
	}
	return nil
}

func (r *reader) running() error {
	rows, err := r.q.Query(r.ctx, r.sql("running"), runningLimit+1)
	if err != nil {
		return err
	}
	r.runQueue, r.runType, r.runWorker = map[string]int64{}, map[string]int64{}, map[string]int64{}
	r.resType, r.resWorker = map[string]int64{}, map[string]int64{}
	var queue, typ, worker string
	var n, reserved, total int64
	_, err = pgx.ForEachRow(rows, []any{&queue, &typ, &worker, &n, &reserved}, func() error {
		r.runQueue[queue] += n
		r.runType[typ] += n
		r.runWorker[worker] += n
		r.resType[typ] += reserved
		r.resWorker[worker] += reserved
		total += n + reserved
		return nil
	})
	r.runExact = total <= runningLimit
	return err
}

// runningCount is a running figure as a Count.
func (r *reader) runningCount(n int64) Count {
	return Count{Value: n, Exact: r.runExact}
}

func (r *reader) pending() error {
	type open struct {
		due, later Count
		oldest     *Age
	}
	opens := map[string]open{}
	rows, err := r.q.Query(r.ctx, r.sql("open"), r.queue, r.limit+1, maxPriorities)
	if err != nil {
		return err
	}
	var name string
	var due, later int64
	var oldest *time.Time
	var truncated bool
	var names []string
	_, err = pgx.ForEachRow(rows, []any{&name, &due, &later, &oldest, &truncated}, func() error {
		o := open{due: capped(due, r.limit), later: capped(later, r.limit)}
		if truncated {
			o.due.Exact, o.later.Exact = false, false
		}
		if oldest != nil {
			o.oldest = r.age(*oldest, !truncated)
		}
		opens[name] = o
		names = append(names, name)
		return nil
	})
	if err != nil {
		return err
	}

	scheduled := map[string]Count{}
	rows, err = r.q.Query(r.ctx, r.sql("scheduled"), r.queue, r.limit+1)
	if err != nil {
		return err
	}
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&name, &n}, func() error {
		scheduled[name] = capped(n, r.limit)
		return nil
	})
	if err != nil {
		return err
	}

	// Lanes: per type, attributed to the type's queue.
	lanes := map[string]lane{}
	var laneTypes []string
	rows, err = r.q.Query(r.ctx, r.sql("lanes"), r.queue, r.limit+1, maxPriorities)
	if err != nil {
		return err
	}
	var queue string
	_, err = pgx.ForEachRow(rows, []any{&name, &queue, &due, &oldest, &truncated}, func() error {
		l := lane{queue: queue, waiting: capped(due, r.limit)}
		if truncated {
			l.waiting.Exact = false
		}
		if oldest != nil {
			l.oldest = r.age(*oldest, !truncated)
		}
		lanes[name] = l
		laneTypes = append(laneTypes, name)
		return nil
	})
	if err != nil {
		return err
	}

	// Estimates of the figures that reached the limit.
	for _, name := range names {
		o := opens[name]
		if err := r.estimate(&o.due, "estimate_ready", name); err != nil {
			return err
		}
		if err := r.estimate(&o.later, "estimate_open_later", name); err != nil {
			return err
		}
		opens[name] = o
		sc := scheduled[name]
		if err := r.estimate(&sc, "estimate_scheduled", name); err != nil {
			return err
		}
		scheduled[name] = sc
	}
	for _, t := range laneTypes {
		l := lanes[t]
		if err := r.estimate(&l.waiting, "estimate_lane", t); err != nil {
			return err
		}
		lanes[t] = l
	}
	r.lanes = lanes
	if err := r.partitions(); err != nil {
		return fmt.Errorf("reading partition keys: %w", err)
	}

	for _, name := range names {
		o := opens[name]
		waiting := exact(0)
		oldest := o.oldest
		for _, t := range laneTypes {
			l := lanes[t]
			if l.queue != name {
				continue
			}
			waiting = waiting.Add(l.waiting)
			oldest = older(oldest, l.oldest)
		}
		for _, p := range r.s.Partitions {
			if p.Queue != name {
				continue
			}
			waiting = waiting.Add(p.Waiting)
			oldest = older(oldest, p.OldestWaiting)
		}
		sched := o.later.Add(scheduled[name])
		q := Queue{
			Name: name, Ready: o.due, Waiting: waiting, Due: o.due.Add(waiting), Scheduled: sched,
			Running: r.runningCount(r.runQueue[name]), OldestDue: oldest,
		}
		q.Pending = q.Due.Add(q.Scheduled)
		r.s.Queues = append(r.s.Queues, q)
	}
	return nil
}

// older returns the older of two ages (nil: none); the result is exact only
// if both are.
func older(a, b *Age) *Age {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	o := *a
	if b.At.Before(a.At) {
		o = *b
	}
	o.Exact = a.Exact && b.Exact
	return &o
}

// estimate sets c's estimate from the planner's estimate of the rows of the
// named query, when c is a lower bound.
func (r *reader) estimate(c *Count, name string, args ...any) error {
	if c.Exact {
		return nil
	}
	e, err := r.planRows(r.sql(name), args...)
	if err != nil {
		return fmt.Errorf("estimating (%s): %w", name, err)
	}
	c.setEstimate(e)
	return nil
}

// planRows returns the planner's estimate of the rows sql returns (EXPLAIN,
// nothing executed).
func (r *reader) planRows(sql string, args ...any) (int64, error) {
	var doc []byte
	if err := r.q.QueryRow(r.ctx, "EXPLAIN (FORMAT JSON) "+sql, args...).Scan(&doc); err != nil {
		return 0, err
	}
	var plans []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plans); err != nil || len(plans) == 0 {
		return 0, fmt.Errorf("reading the plan: %v", err)
	}
	return int64(math.Round(plans[0].Plan.Rows)), nil
}

func (r *reader) finished() error {
	rows, err := r.q.Query(r.ctx, r.sql("finished"), r.queue, r.limit+1)
	if err != nil {
		return err
	}
	type fin struct{ failed, dead Count }
	out := map[string]fin{}
	var name string
	var finished, failed, dead int64
	_, err = pgx.ForEachRow(rows, []any{&name, &finished, &failed, &dead}, func() error {
		// All the queue's finished tasks were read, or only the newest:
		// then what they hold is a lower bound.
		all := finished <= int64(r.limit)
		out[name] = fin{Count{Value: failed, Exact: all}, Count{Value: dead, Exact: all}}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range r.s.Queues {
		q := &r.s.Queues[i]
		f := out[q.Name]
		if err := r.estimate(&f.failed, "estimate_finished", q.Name, "failed"); err != nil {
			return err
		}
		if err := r.estimate(&f.dead, "estimate_finished", q.Name, "dead_letter"); err != nil {
			return err
		}
		q.Failed, q.DeadLetter = f.failed, f.dead
	}
	return nil
}

func (r *reader) limits() error {
	rows, err := r.q.Query(r.ctx, r.sql("limits"), r.queue)
	if err != nil {
		return err
	}
	var l Limit
	var groups, caps, used []int32
	_, err = pgx.ForEachRow(rows, []any{&l.TaskType, &l.Queue, &l.Limit, &l.Draining, &l.SlotGroups,
		&l.Capacity, &l.Used, &l.Free, &groups, &caps, &used}, func() error {
		x := l
		x.DrainingGroups = []SlotGroup{}
		for i := range groups {
			x.DrainingGroups = append(x.DrainingGroups, SlotGroup{Group: int(groups[i]), Capacity: int(caps[i]), Used: int(used[i])})
		}
		// The flag is set by apply and cleared by the hand-off that ends
		// the drain; a group over capacity drains either way.
		x.Draining = x.Draining || len(x.DrainingGroups) > 0
		x.Running = r.runningCount(r.runType[x.TaskType])
		x.Reserved = r.runningCount(r.resType[x.TaskType])
		x.Waiting = exact(0)
		if ln, ok := r.lanes[x.TaskType]; ok {
			x.Waiting, x.OldestWaiting = ln.waiting, ln.oldest
		}
		waits := x.Waiting.Value > 0
		x.Binding = waits && (x.Free == 0 || x.Draining)
		switch {
		case x.Draining:
			x.State = "draining"
		case x.Binding:
			x.State = "binding"
		case waits:
			x.State = "admitting"
		default:
			x.State = "ok"
		}
		r.s.Limits = append(r.s.Limits, x)
		return nil
	})
	return err
}

func (r *reader) workers() error {
	if err := r.q.QueryRow(r.ctx, r.sql("worker_counts")).Scan(&r.s.Workers.Dead); err != nil {
		return err
	}
	rows, err := r.q.Query(r.ctx, r.sql("workers"), deadWorkersListed)
	if err != nil {
		return err
	}
	var w Worker
	var deadAt *time.Time
	_, err = pgx.ForEachRow(rows, []any{&w.ID, &w.Hostname, &w.PoolSize, &w.Version, &w.StartedAt,
		&w.LastHeartbeat, &w.HeartbeatAgeSeconds, &deadAt}, func() error {
		x := w
		x.DeadAt = deadAt
		switch {
		case deadAt != nil:
			x.State = "dead"
		case x.HeartbeatAgeSeconds > r.s.Workers.TimeoutSeconds:
			x.State = "late"
			r.s.Workers.Late++
		default:
			x.State = "alive"
			r.s.Workers.Alive++
		}
		x.Running = r.runWorker[x.ID]
		x.Reserved = r.resWorker[x.ID]
		r.s.Workers.List = append(r.s.Workers.List, x)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(r.s.Workers.List, func(i, j int) bool { return r.s.Workers.List[i].ID < r.s.Workers.List[j].ID })
	return nil
}

func (r *reader) leader() error {
	var id *string
	var l Leader
	err := r.q.QueryRow(r.ctx, r.sql("leader")).Scan(&id, &l.LeaseUntil, &l.Live, &l.LeaseLeftSeconds, &l.ElectedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if id == nil {
		return nil // never elected
	}
	l.WorkerID = *id
	for i := range r.s.Workers.List {
		w := &r.s.Workers.List[i]
		if w.ID == l.WorkerID {
			l.WorkerState = w.State
			w.Leader = l.Live
		}
	}
	r.s.Leader = &l
	return nil
}

func (r *reader) counters() error {
	rows, err := r.q.Query(r.ctx, r.sql("counters"), r.limit+1)
	if err != nil {
		return err
	}
	var c Counter
	var attached bool
	var scopes int64
	var highest *int64
	_, err = pgx.ForEachRow(rows, []any{&c.Name, &attached, &c.Table, &c.Column, &c.TwoPhase, &scopes, &highest}, func() error {
		x := c
		x.Kind = "standalone"
		if attached {
			x.Kind = "attached"
		}
		x.Scopes = capped(scopes, r.limit)
		if highest != nil {
			h := Count{Value: *highest, Exact: x.Scopes.Exact}
			x.Highest = &h
		}
		x.PendingReservations = exact(0)
		r.s.Counters = append(r.s.Counters, x)
		return nil
	})
	if err != nil {
		return err
	}
	for i := range r.s.Counters {
		if err := r.estimate(&r.s.Counters[i].Scopes, "estimate_scopes", r.s.Counters[i].Name); err != nil {
			return err
		}
	}

	rows, err = r.q.Query(r.ctx, r.sql("reservations"), r.limit+1)
	if err != nil {
		return err
	}
	type res struct {
		n      int64
		oldest time.Time
	}
	pending := map[string]res{}
	var name string
	var n, total int64
	var oldest time.Time
	_, err = pgx.ForEachRow(rows, []any{&name, &n, &oldest}, func() error {
		pending[name] = res{n, oldest}
		total += n
		return nil
	})
	if err != nil {
		return err
	}
	all := total <= int64(r.limit)
	for i := range r.s.Counters {
		c := &r.s.Counters[i]
		p, ok := pending[c.Name]
		c.PendingReservations = Count{Value: p.n, Exact: all}
		if ok {
			c.OldestReservation = r.age(p.oldest, all)
		}
	}
	return nil
}
