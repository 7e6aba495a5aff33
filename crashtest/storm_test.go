package crashtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/reconcile"
)

// stormEnv names the variable that sets TestStorm's length (a Go duration,
// e.g. 10m); stormDefault is its length in the default suite.
const (
	stormEnv     = "PGSEQ_STORM"
	stormDefault = 20 * time.Second
)

// The storm's queue and task types. The applier cycles the limits of
// storm:a, storm:b and storm:c through these sequences; storm:d keeps its
// limit; storm:plain is unlimited.
const stormQueue = "storm"

var (
	stormLimitsA = []int{3, 1, 5}
	stormLimitsB = []int{5, 2, 4}
	stormLimitsC = []int{3, 100}
	stormTypes   = []string{"storm:a", "storm:b", "storm:c", "storm:d", "storm:plain"}
)

// stormState is the configuration of the applier's step-th apply (step 0 is
// the first one).
func stormState(step int) catalog.State {
	q := catalog.DefaultQueue(stormQueue)
	q.BatchSize = 5
	q.MaxRetries = 5
	q.WorkerTimeout = catalog.MinLease
	q.LeaderLease = catalog.MinLease
	q.Backoff = catalog.Backoff{Initial: catalog.Duration(50 * time.Millisecond), Max: catalog.Duration(300 * time.Millisecond), Factor: 2}
	q.Retention = catalog.Retention{Completed: catalog.Duration(2 * time.Second), DeadLetter: catalog.Duration(2 * time.Second)}
	return catalog.State{
		Queues: []catalog.Queue{q},
		TaskTypes: []catalog.TaskType{
			{Name: "storm:a", Queue: stormQueue, Concurrency: stormLimitsA[step%len(stormLimitsA)]},
			{Name: "storm:b", Queue: stormQueue, Concurrency: stormLimitsB[step%len(stormLimitsB)]},
			{Name: "storm:c", Queue: stormQueue, Concurrency: stormLimitsC[step%len(stormLimitsC)]},
			{Name: "storm:d", Queue: stormQueue, Concurrency: 2},
			{Name: "storm:plain", Queue: stormQueue},
		},
	}
}

// stormLength returns PGSEQ_STORM, stormDefault when unset.
func stormLength(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv(stormEnv)
	if v == "" {
		return stormDefault
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "%s must be a Go duration such as 10m", stormEnv)
	require.GreaterOrEqual(t, d, 2*time.Second, "%s must be at least 2s", stormEnv)
	return d
}

const (
	stormClaimers  = 5
	stormEnqueuers = 3
	stormLeaders   = 2
	// stormCall bounds every call of an actor: a call that takes longer hangs.
	stormCall = 20 * time.Second
	// stormStarve is how long a due waiting task may sit beside a free unit
	// of its type (invariant 5).
	stormStarve = time.Second
	// stormBacklog is the most unfinished tasks of a type the enqueuers
	// keep: enough for lanes that never empty, few enough to drain at the end.
	stormBacklog = 120
	// stormSettle bounds the drain after the storm.
	stormSettle = 45 * time.Second
)

// TestStorm runs every runtime call at once against one schema — enqueuers
// (with idempotency conflicts, rollbacks, batches and scheduled tasks),
// claimers that complete, complete_and_take, fail and release, die and get
// their connections killed, two leader contenders running maintenance, and
// an applier raising and lowering the limits — while a sampler checks the
// limits model in one snapshot per sample. See the package documentation.
func TestStorm(t *testing.T) {
	length := stormLength(t)
	pool, schema := pgtest.Pool(t), pgtest.Schema(t)
	pgseqtest.Apply(t, pool, schema, stormState(0))

	s := newStorm(t, schema, length)
	defer s.closePools()
	s.run()
	s.report()
}

// storm is one run of TestStorm: its actors, figures and findings.
type storm struct {
	*pgseqtest.DB        // the storm's schema; Pool is applyPool
	appName       string // application_name of every connection the storm opens
	connCfg       *pgx.ConnConfig
	start         time.Time
	stormEnd      time.Time

	chaos atomic.Bool   // true while the storm rages: enqueues, applies, deaths, kills
	stop  chan struct{} // closed when every actor must leave

	hbPool    *pgxpool.Pool // the claimers' heartbeats
	applyPool *pgxpool.Pool // the applier

	claimers []*stormClaimer

	// Figures.
	enqCalls, enqBatches, enqRolledBack, enqScheduled                atomic.Int64
	claims, claimedTasks, completed, taken, failedRetry, failedFinal atomic.Int64
	released, lostFinishes, deaths, zombieCalls, zombieDone, kills   atomic.Int64
	declaredDead, txRounds, txRolledBack, applies, maintenances      atomic.Int64
	recovered, rounds                                                atomic.Int64
	reservedTasks, startedReserved, refusedStarts                    atomic.Int64
	lastMaint                                                        atomic.Int64 // Unix ns of the last maintenance that returned
	applying                                                         atomic.Int64 // Unix ns the apply in flight began, 0 when none
	applyEnd                                                         atomic.Int64 // Unix ns the last apply ended

	idMu sync.Mutex
	ids  map[int64]struct{} // ids returned by committed enqueues

	backlogMu sync.Mutex
	backlog   map[string]int // unfinished tasks per type, from the sampler

	errMu      sync.Mutex
	deadlocks  []string
	nDeadlock  int
	expected   map[string]int
	unexpected []string
	nUnexp     int

	holdMu   sync.Mutex
	holdings []*holding // finished holdings whose finish the runtime accepted

	v     *stormViolations
	notes *stormViolations // findings that are not violations

	samples     atomic.Int64
	sampleNs    atomic.Int64 // time spent sampling
	sampleMaxNs atomic.Int64
	sampleErrs  atomic.Int64
	deadRunning atomic.Int64 // samples with a task running for a worker already declared dead
	maxRunning  sync.Map     // type → highest running count seen
}

func newStorm(t *testing.T, schema string, length time.Duration) *storm {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	s := &storm{
		DB: &pgseqtest.DB{T: t, Schema: schema}, connCfg: cfg,
		appName:  "pgseq storm " + schema,
		stop:     make(chan struct{}),
		ids:      map[int64]struct{}{},
		backlog:  map[string]int{},
		expected: map[string]int{},
		v:        &stormViolations{count: map[string]int{}, examples: map[string][]string{}},
		notes:    &stormViolations{count: map[string]int{}, examples: map[string][]string{}},
	}
	cfg.RuntimeParams["application_name"] = s.appName
	s.hbPool = s.newPool(4)
	s.applyPool = s.newPool(2)
	s.Pool = s.applyPool
	s.start = time.Now()
	s.stormEnd = s.start.Add(length)
	return s
}

func (s *storm) newPool(n int32) *pgxpool.Pool {
	pc, err := pgxpool.ParseConfig("")
	require.NoError(s.T, err)
	pc.ConnConfig = s.connCfg.Copy()
	pc.MaxConns = n
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := pgxpool.NewWithConfig(ctx, pc)
	require.NoError(s.T, err)
	return p
}

func (s *storm) closePools() {
	s.hbPool.Close()
	s.applyPool.Close()
}

// connect opens one connection of an actor.
func (s *storm) connect() (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stormCall)
	defer cancel()
	return pgx.ConnectConfig(ctx, s.connCfg.Copy())
}

// call returns a context for one call.
func call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), stormCall)
}

func (s *storm) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// nap sleeps between lo and hi, or less when the storm stops; it reports
// whether the actor may go on.
func (s *storm) nap(rng *rand.Rand, lo, hi time.Duration) bool {
	d := lo
	if hi > lo {
		d += time.Duration(rng.Int64N(int64(hi - lo)))
	}
	select {
	case <-s.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// classify records an actor's error: a deadlock fails the test wherever it
// happens; terminated connections (killed says the actor's was), PS002 and
// PS003 are expected, and so is the applier's lock timeout; anything else
// fails the test.
func (s *storm) classify(actor string, err error, killed bool) {
	var pe *pgconn.PgError
	code := ""
	if errors.As(err, &pe) {
		code = pe.Code
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	switch {
	case code == "40P01":
		s.nDeadlock++
		if len(s.deadlocks) < 10 {
			where := pe.Where
			if len(where) > 300 {
				where = where[:300] + "…"
			}
			s.deadlocks = append(s.deadlocks, fmt.Sprintf("%s at %s: %v\n    %s\n    in: %s", actor, s.since(), err,
				strings.ReplaceAll(pe.Detail, "\n", "\n    "), strings.ReplaceAll(where, "\n", " / ")))
		}
	case killed:
		s.expected["connection terminated by the killer"]++
	case code == "PS002":
		s.expected["PS002 worker declared dead"]++
	case code == "PS003":
		s.expected["PS003 not the leader any more"]++
	case code == "55P03" && strings.HasPrefix(actor, "applier"):
		s.expected["55P03 applier lock timeout"]++
	default:
		s.nUnexp++
		if len(s.unexpected) < 20 {
			s.unexpected = append(s.unexpected, fmt.Sprintf("%s at %s: %v", actor, s.since(), err))
		}
	}
}

func (s *storm) since() string { return time.Since(s.start).Round(time.Millisecond).String() }

func (s *storm) remember(ids ...int64) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	for _, id := range ids {
		s.ids[id] = struct{}{}
	}
}

// run starts every actor, lets the storm rage until stormEnd, stops the
// chaos, waits for the drain and stops everyone.
func (s *storm) run() {
	s.chaos.Store(true)
	var chaosWG, workWG sync.WaitGroup
	go1 := func(wg *sync.WaitGroup, f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	go1(&workWG, s.sampler)
	for i := range stormLeaders {
		go1(&workWG, func() { s.leader(i) })
	}
	for i := range stormClaimers {
		c := &stormClaimer{s: s, idx: i, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
		s.claimers = append(s.claimers, c)
		go1(&workWG, c.run)
	}
	for i := range stormEnqueuers {
		go1(&chaosWG, func() { s.enqueuer(i) })
	}
	go1(&chaosWG, s.applier)
	go1(&chaosWG, s.killer)

	time.Sleep(time.Until(s.stormEnd))
	s.chaos.Store(false)
	chaosWG.Wait()
	s.T.Logf("storm over after %s; draining", s.since())

	// The drain: claimers and leaders go on until nothing is pending or
	// running (or stormSettle passes).
	settled := s.waitSettled()
	close(s.stop)
	workWG.Wait()
	s.T.Logf("everyone stopped at %s (drained: %v)", s.since(), settled)
	s.quiescent(settled)
	s.checkOverlaps()
}

// waitSettled waits until no task is pending or running, at most stormSettle.
func (s *storm) waitSettled() bool {
	deadline := time.Now().Add(stormSettle)
	conn, err := s.connect()
	if err != nil {
		s.classify("settle", err, false)
		return false
	}
	defer conn.Close(context.Background())
	for time.Now().Before(deadline) {
		ctx, cancel := call()
		var left int
		err := conn.QueryRow(ctx, s.SQL(`SELECT count(*) FROM {{schema}}.tasks WHERE status IN ('pending', 'claimed', 'running')`)).Scan(&left)
		cancel()
		if err != nil {
			s.classify("settle", err, false)
			return false
		}
		if left == 0 {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// ---------------------------------------------------------------------------
// Enqueuers

func (s *storm) enqueuer(i int) {
	rng := rand.New(rand.NewPCG(uint64(100+i), uint64(time.Now().UnixNano())))
	actor := fmt.Sprintf("enqueuer %d", i)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for s.chaos.Load() {
		if conn == nil || conn.IsClosed() {
			var err error
			if conn, err = s.connect(); err != nil {
				s.classify(actor, err, false)
				conn = nil
				if !s.nap(rng, 100*time.Millisecond, 200*time.Millisecond) {
					return
				}
				continue
			}
		}
		var err error
		tag := ""
		switch p := rng.IntN(100); {
		case p < 45:
			err = s.enqueueOne(conn, rng, true)
		case p < 60:
			err = s.enqueueInTx(conn, rng, false) // rolled back on purpose
			tag = " (in a transaction)"
		case p < 70:
			err = s.enqueueInTx(conn, rng, true)
			tag = " (in a transaction)"
		default:
			err = s.enqueueBatch(conn, rng)
			tag = " (enqueue_batch)"
		}
		if err != nil {
			s.classify(actor+tag, err, false)
		}
		if !s.nap(rng, 20*time.Millisecond, 50*time.Millisecond) {
			return
		}
	}
}

// pickType returns a task type whose backlog has room (limited types more
// often), or "" when none has.
func (s *storm) pickType(rng *rand.Rand) string {
	weights := []int{3, 3, 2, 2, 2}
	s.backlogMu.Lock()
	defer s.backlogMu.Unlock()
	total := 0
	for i, typ := range stormTypes {
		if s.backlog[typ] < stormBacklog {
			total += weights[i]
		}
	}
	if total == 0 {
		return ""
	}
	n := rng.IntN(total)
	for i, typ := range stormTypes {
		if s.backlog[typ] >= stormBacklog {
			continue
		}
		if n < weights[i] {
			return typ
		}
		n -= weights[i]
	}
	return ""
}

// pickKey returns an idempotency key from a small set that changes every
// two seconds (so conflicts go on all along), or nil.
func (s *storm) pickKey(rng *rand.Rand) *string {
	if rng.IntN(2) == 0 {
		return nil
	}
	k := fmt.Sprintf("e%d-k%d", int(time.Since(s.start)/(2*time.Second)), rng.IntN(8))
	return &k
}

// pickDelay returns how far in the future a task is due, in seconds (0:
// now).
func (s *storm) pickDelay(rng *rand.Rand) float64 {
	if rng.IntN(5) == 0 {
		s.enqScheduled.Add(1)
		return 0.1 + 0.4*rng.Float64()
	}
	return 0
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

const enqueueSQL = `SELECT {{schema}}.enqueue($1, $2::text::jsonb, $3, NULL,
    CASE WHEN $4::float8 > 0 THEN now() + $4::float8 * interval '1 second' END)`

func (s *storm) enqueueOne(q querier, rng *rand.Rand, commit bool) error {
	typ := s.pickType(rng)
	if typ == "" {
		return nil
	}
	ctx, cancel := call()
	defer cancel()
	var id int64
	err := q.QueryRow(ctx, s.SQL(enqueueSQL), typ, fmt.Sprintf(`{"n": %d}`, rng.IntN(1000)), s.pickKey(rng), s.pickDelay(rng)).Scan(&id)
	if err != nil {
		return err
	}
	s.enqCalls.Add(1)
	if commit {
		s.remember(id)
	}
	return nil
}

// enqueueInTx enqueues 1–3 tasks in a transaction that stays open a little
// (other enqueuers of the same keys wait for it), then commits or rolls
// back.
func (s *storm) enqueueInTx(conn *pgx.Conn, rng *rand.Rand, commit bool) error {
	ctx, cancel := call()
	defer cancel()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // after Commit: a no-op
	// The tasks in (type, key) order, as an application must enqueue the
	// keyed tasks of one transaction (or in one enqueue_batch, which sorts
	// them): two transactions that insert the same keys in opposite orders
	// wait for each other, as with any unique index.
	type newTask struct {
		typ   string
		key   *string
		delay float64
	}
	var tasks []newTask
	for range 1 + rng.IntN(3) {
		typ := s.pickType(rng)
		if typ == "" {
			break
		}
		tasks = append(tasks, newTask{typ: typ, key: s.pickKey(rng), delay: s.pickDelay(rng)})
	}
	slices.SortStableFunc(tasks, func(a, b newTask) int {
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		switch {
		case a.key == nil && b.key == nil:
			return 0
		case a.key == nil: // keyless tasks wait for no key: first
			return -1
		case b.key == nil:
			return 1
		default:
			return strings.Compare(*a.key, *b.key)
		}
	})
	var ids []int64
	for _, t := range tasks {
		var id int64
		if err := tx.QueryRow(ctx, s.SQL(enqueueSQL), t.typ, `{"tx": true}`, t.key, t.delay).Scan(&id); err != nil {
			return err
		}
		s.enqCalls.Add(1)
		ids = append(ids, id)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_sleep($1)`, 0.01+0.04*rng.Float64()); err != nil {
		return err
	}
	if !commit {
		s.enqRolledBack.Add(1)
		return tx.Rollback(ctx)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	s.remember(ids...)
	return nil
}

// enqueueBatch enqueues 2–8 tasks with enqueue_batch: mixed types, keys
// repeated within the batch, some due later.
func (s *storm) enqueueBatch(conn *pgx.Conn, rng *rand.Rand) error {
	n := 2 + rng.IntN(7)
	var types []string
	var payloads []string
	var keys []*string
	var delays []float64
	for range n {
		typ := s.pickType(rng)
		if typ == "" {
			break
		}
		types = append(types, typ)
		payloads = append(payloads, fmt.Sprintf(`{"b": %d}`, rng.IntN(1000)))
		k := s.pickKey(rng)
		if k == nil && len(keys) > 0 && rng.IntN(4) == 0 && types[len(types)-1] == types[0] {
			k = keys[0] // the same key twice in one batch
		}
		keys = append(keys, k)
		delays = append(delays, s.pickDelay(rng))
	}
	if len(types) == 0 {
		return nil
	}
	ctx, cancel := call()
	defer cancel()
	rows, err := conn.Query(ctx, s.SQL(`
SELECT id FROM {{schema}}.enqueue_batch($1::text[], $2::text[]::jsonb[], $3::text[], NULL,
    (SELECT array_agg(CASE WHEN u.d > 0 THEN now() + u.d * interval '1 second' END ORDER BY u.o)
     FROM unnest($4::float8[]) WITH ORDINALITY AS u(d, o))) AS id`), types, payloads, keys, delays)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	s.enqBatches.Add(1)
	s.enqCalls.Add(1)
	s.remember(ids...)
	return nil
}

// ---------------------------------------------------------------------------
// Claimers

// holding is one task held by one worker: from the return of the call that
// gave it (the commit, in a transaction) to the sending of the call that
// finished it. A holding whose finish the runtime accepted (the worker still
// owned the task) owned it throughout, so two such holdings of one task
// must not overlap.
type holding struct {
	task     int64
	typ      string
	worker   string
	claimed  time.Time
	endSent  time.Time
	tentativ bool // claimed in the open transaction: not committed yet
}

type stormClaimer struct {
	s      *storm
	idx    int
	rng    *rand.Rand
	gen    int
	conn   *pgx.Conn
	pid    atomic.Uint32
	killed atomic.Bool // the killer terminated this connection
	worker string
	dead   atomic.Bool // its heartbeat said it was declared dead
	hbStop chan struct{}
	hbDone chan struct{}
	held   []*holding
	inTx   bool // the round runs in a transaction of several calls
	// reserved are the claimer's reserved successors (complete_and_reserve):
	// not held (they run in no handler) until started in place of a held
	// task of their type.
	reserved []*holding
}

func (c *stormClaimer) actor() string {
	if c.inTx {
		return fmt.Sprintf("claimer %d (%s, in a transaction of several calls)", c.idx, c.worker)
	}
	return fmt.Sprintf("claimer %d (%s)", c.idx, c.worker)
}

func (c *stormClaimer) run() {
	s := c.s
	defer func() {
		c.stopHeartbeat()
		if c.conn != nil {
			c.s.untrack(c)
			c.conn.Close(context.Background())
		}
	}()
	for !s.stopped() {
		if c.conn == nil || c.conn.IsClosed() {
			if !c.reconnect() {
				continue
			}
		}
		if c.worker == "" && !c.register() {
			continue
		}
		if c.dead.Load() {
			s.declaredDead.Add(1)
			c.abandon()
			c.retire()
			continue
		}
		if s.chaos.Load() && c.rng.IntN(500) == 0 {
			c.die()
			continue
		}
		c.round()
	}
	// Hand back what is still held or reserved (only after a drain that
	// did not finish).
	if len(c.held)+len(c.reserved) > 0 && c.conn != nil && !c.conn.IsClosed() {
		ctx, cancel := call()
		_, _ = c.conn.Exec(ctx, s.SQL(`SELECT {{schema}}.release($1, $2)`), append(c.heldIDs(), holdingIDs(c.reserved)...), c.worker)
		cancel()
	}
}

func (c *stormClaimer) reconnect() bool {
	s := c.s
	if c.conn != nil {
		s.untrack(c)
		c.conn.Close(context.Background())
		c.conn = nil
	}
	conn, err := s.connect()
	if err != nil {
		s.classify(c.actor(), err, false)
		s.nap(c.rng, 100*time.Millisecond, 200*time.Millisecond)
		return false
	}
	c.conn = conn
	c.killed.Store(false)
	s.track(c, conn.PgConn().PID())
	return true
}

// register announces the claimer under a new worker id and starts its
// heartbeat.
func (c *stormClaimer) register() bool {
	s := c.s
	c.gen++
	worker := fmt.Sprintf("storm-c%d-g%d", c.idx, c.gen)
	ctx, cancel := call()
	defer cancel()
	if _, err := c.conn.Exec(ctx, s.SQL(`SELECT {{schema}}.register_worker($1, 'storm', 5)`), worker); err != nil {
		s.classify(c.actor(), err, c.killed.Load())
		return false
	}
	c.worker = worker
	c.dead.Store(false)
	c.hbStop, c.hbDone = make(chan struct{}), make(chan struct{})
	go c.heartbeat(worker, c.hbStop, c.hbDone)
	return true
}

func (c *stormClaimer) heartbeat(worker string, stop, done chan struct{}) {
	defer close(done)
	s := c.s
	rng := rand.New(rand.NewPCG(uint64(c.idx), uint64(time.Now().UnixNano())))
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(100+rng.IntN(150)) * time.Millisecond):
		}
		ctx, cancel := call()
		var alive bool
		err := s.hbPool.QueryRow(ctx, s.SQL(`SELECT {{schema}}.heartbeat($1)`), worker).Scan(&alive)
		cancel()
		if err != nil {
			s.classify("heartbeat of "+worker, err, false)
			continue
		}
		if !alive {
			c.dead.Store(true)
			return
		}
	}
}

func (c *stormClaimer) stopHeartbeat() {
	if c.hbStop != nil {
		close(c.hbStop)
		<-c.hbDone
		c.hbStop, c.hbDone = nil, nil
	}
}

// retire stops the heartbeat: the next round registers a new worker id.
func (c *stormClaimer) retire() {
	c.stopHeartbeat()
	c.worker = ""
}

// abandon forgets the tasks held: they are the leader's to recover, and
// whether this worker ran them to the end is unknown.
func (c *stormClaimer) abandon() { c.held, c.reserved = nil, nil }

// die stops heartbeating and abandons the tasks held, stays silent longer
// than worker_timeout, sometimes tries to complete its old tasks as a
// zombie (the runtime must refuse unless it still owns them), and comes
// back under a new worker id.
func (c *stormClaimer) die() {
	s := c.s
	s.deaths.Add(1)
	c.stopHeartbeat()
	old, held := c.worker, c.held
	c.held, c.reserved = nil, nil
	c.worker = ""
	if !s.nap(c.rng, 1200*time.Millisecond, 2*time.Second) {
		return
	}
	if len(held) == 0 || c.rng.IntN(2) == 0 {
		return
	}
	ids := make([]int64, len(held))
	for i, h := range held {
		ids[i] = h.task
	}
	s.zombieCalls.Add(1)
	sent := time.Now()
	ctx, cancel := call()
	defer cancel()
	var n int
	if err := c.conn.QueryRow(ctx, s.SQL(`SELECT {{schema}}.complete($1, $2)`), ids, old).Scan(&n); err != nil {
		s.classify(fmt.Sprintf("zombie claimer %d (%s)", c.idx, old), err, c.killed.Load())
		return
	}
	s.zombieDone.Add(int64(n))
	if n == len(ids) {
		c.finished(held, sent) // it still owned them all
	}
}

func (c *stormClaimer) heldIDs() []int64 { return holdingIDs(c.held) }

func holdingIDs(hs []*holding) []int64 {
	ids := make([]int64, len(hs))
	for i, h := range hs {
		ids[i] = h.task
	}
	return ids
}

// finished records holdings whose finish the runtime accepted.
func (c *stormClaimer) finished(hs []*holding, sent time.Time) {
	c.s.holdMu.Lock()
	defer c.s.holdMu.Unlock()
	for _, h := range hs {
		h.endSent = sent
		c.s.holdings = append(c.s.holdings, h)
	}
}

// roundTx is the bookkeeping of a round run in a transaction, applied at
// its commit.
type roundTx struct {
	before   []*holding // c.held when it began
	finishes []finishRec
}

type finishRec struct {
	hs   []*holding
	sent time.Time
}

// round claims a batch and finishes what it holds, sometimes inside a
// transaction (which the killer may interrupt, and which is sometimes
// rolled back on purpose).
func (c *stormClaimer) round() {
	s := c.s
	s.rounds.Add(1)
	var q querier = c.conn
	var tx pgx.Tx
	var rt *roundTx
	if s.chaos.Load() && c.rng.IntN(100) < 30 {
		ctx, cancel := call()
		var err error
		tx, err = c.conn.Begin(ctx)
		cancel()
		if err != nil {
			c.failed(err)
			return
		}
		q = tx
		c.inTx = true
		defer func() { c.inTx = false }()
		rt = &roundTx{before: slices.Clone(c.held)}
		s.txRounds.Add(1)
	}
	ok := c.claim(q, rt)
	if ok && tx == nil && len(c.held) > 0 && s.chaos.Load() && c.rng.IntN(120) == 0 {
		c.die() // with tasks in hand
		return
	}
	// Worker calls run one per transaction: what the runtime promises to
	// keep free of deadlocks (a transaction of several worker calls holds
	// the first call's locks while the next waits, against an order no
	// other caller can know). A round in a transaction is its claim alone,
	// committed or rolled back; the enqueuers' transactions group several
	// enqueues, as applications do.
	for i := 0; tx == nil && ok && len(c.held) > 0 && i < 4; i++ {
		ok = c.finish(q, rt, tx != nil)
	}
	if tx == nil {
		if ok && len(c.held) == 0 {
			s.nap(c.rng, 15*time.Millisecond, 40*time.Millisecond)
		} else {
			s.nap(c.rng, 5*time.Millisecond, 15*time.Millisecond) // two shared cores: no spinning
		}
		return
	}
	ctx, cancel := call()
	defer cancel()
	if !ok {
		_ = tx.Rollback(ctx)
		return
	}
	if c.rng.IntN(10) == 0 {
		s.txRolledBack.Add(1)
		if err := tx.Rollback(ctx); err != nil {
			c.failed(err)
			return
		}
		c.held = rt.before // nothing happened
		return
	}
	if err := tx.Commit(ctx); err != nil {
		c.failed(err)
		return
	}
	now := time.Now()
	for _, h := range c.held {
		if h.tentativ {
			h.claimed, h.tentativ = now, false
		}
	}
	for _, f := range rt.finishes {
		c.finished(f.hs, f.sent)
	}
}

// failed handles an error in a round: whatever was held is abandoned (the
// leader recovers it), and the claimer comes back under a new worker id,
// on a new connection if its own was lost.
func (c *stormClaimer) failed(err error) {
	c.s.classify(c.actor(), err, c.killed.Load())
	c.abandon()
	c.retire()
}

// claim claims 1–5 tasks.
func (c *stormClaimer) claim(q querier, rt *roundTx) bool {
	s := c.s
	ctx, cancel := call()
	defer cancel()
	rows, err := q.Query(ctx, s.SQL(`SELECT id, type FROM {{schema}}.claim($1, $2, $3)`), stormQueue, c.worker, 1+c.rng.IntN(5))
	if err == nil {
		type row struct {
			ID   int64
			Type string
		}
		var got []row
		got, err = pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err == nil {
			s.claims.Add(1)
			s.claimedTasks.Add(int64(len(got)))
			now := time.Now()
			for _, r := range got {
				c.held = append(c.held, &holding{task: r.ID, typ: r.Type, worker: c.worker, claimed: now, tentativ: rt != nil})
			}
		}
	}
	if err != nil {
		c.failed(err)
		return false
	}
	if len(c.held) > 0 {
		if rt != nil {
			if _, err := q.Exec(ctx, `SELECT pg_sleep($1)`, 0.02*c.rng.Float64()); err != nil {
				c.failed(err)
				return false
			}
		} else {
			time.Sleep(time.Duration(c.rng.IntN(15)) * time.Millisecond)
		}
	}
	return true
}

// finish finishes every task held, each with a random call: complete,
// complete_and_take (what it hands over is held next), fail (retry or not),
// release.
func (c *stormClaimer) finish(q querier, rt *roundTx, inTx bool) bool {
	s := c.s
	held := c.held
	c.held = nil
	var complete, take, reserve, release []*holding
	for _, h := range held {
		if slices.ContainsFunc(c.reserved, func(r *holding) bool { return r.typ == h.typ }) && c.rng.IntN(5) > 0 {
			// Mostly as a worker does: a successor starts in its place.
			reserve = append(reserve, h)
			continue
		}
		switch p := c.rng.IntN(100); {
		case p < 35:
			complete = append(complete, h)
		case p < 50:
			take = append(take, h)
		case p < 65:
			reserve = append(reserve, h)
		case p < 80:
			release = append(release, h)
		default:
			// fail, one by one
			retry := p < 95
			sent := time.Now()
			ctx, cancel := call()
			var status *string
			err := q.QueryRow(ctx, s.SQL(`SELECT {{schema}}.fail($1, $2, 'storm', $3)`), h.task, c.worker, retry).Scan(&status)
			cancel()
			if err != nil {
				c.failed(err)
				return false
			}
			if status == nil {
				s.lostFinishes.Add(1)
				continue
			}
			if retry {
				s.failedRetry.Add(1)
			} else {
				s.failedFinal.Add(1)
			}
			c.record(rt, []*holding{h}, sent)
		}
	}
	ids := func(hs []*holding) []int64 {
		out := make([]int64, len(hs))
		for i, h := range hs {
			out[i] = h.task
		}
		return out
	}
	if len(complete) > 0 {
		sent := time.Now()
		ctx, cancel := call()
		var n int
		err := q.QueryRow(ctx, s.SQL(`SELECT {{schema}}.complete($1, $2)`), ids(complete), c.worker).Scan(&n)
		cancel()
		if err != nil {
			c.failed(err)
			return false
		}
		s.completed.Add(int64(n))
		c.accepted(rt, complete, n, sent)
	}
	if len(release) > 0 {
		sent := time.Now()
		ctx, cancel := call()
		var n int
		err := q.QueryRow(ctx, s.SQL(`SELECT {{schema}}.release($1, $2)`), ids(release), c.worker).Scan(&n)
		cancel()
		if err != nil {
			c.failed(err)
			return false
		}
		s.released.Add(int64(n))
		c.accepted(rt, release, n, sent)
	}
	if len(take) > 0 {
		sent := time.Now()
		ctx, cancel := call()
		rows, err := q.Query(ctx, s.SQL(`SELECT completed, id, type FROM {{schema}}.complete_and_take($1, $2)`), ids(take), c.worker)
		type row struct {
			Completed int
			ID        *int64
			Type      *string
		}
		var got []row
		if err == nil {
			got, err = pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		}
		cancel()
		if err != nil {
			c.failed(err)
			return false
		}
		now := time.Now()
		n := 0
		for _, r := range got {
			n = r.Completed
			if r.ID != nil {
				s.taken.Add(1)
				c.held = append(c.held, &holding{task: *r.ID, typ: *r.Type, worker: c.worker, claimed: now, tentativ: inTx})
			}
		}
		s.completed.Add(int64(n))
		c.accepted(rt, take, n, sent)
	}
	if len(reserve) > 0 && !c.completeAndReserve(q, rt, reserve, inTx) {
		return false
	}
	if !c.trimReserved(q) {
		return false
	}
	if len(c.held) > 0 {
		time.Sleep(time.Duration(c.rng.IntN(10)) * time.Millisecond)
	}
	return true
}

// completeAndReserve completes hs with complete_and_reserve, starting in
// place of each a reserved successor of its type when the claimer has one
// (promoted: held next, from the call on), and asks for 0–3 reservations.
// What it hands over is held next; refused successors were not the
// claimer's.
func (c *stormClaimer) completeAndReserve(q querier, rt *roundTx, hs []*holding, inTx bool) bool {
	s := c.s
	var started []*holding
	for _, h := range hs {
		if i := slices.IndexFunc(c.reserved, func(r *holding) bool { return r.typ == h.typ }); i >= 0 {
			started = append(started, c.reserved[i])
			c.reserved = slices.Delete(c.reserved, i, i+1)
		}
	}
	sent := time.Now()
	ctx, cancel := call()
	rows, err := q.Query(ctx, s.SQL(`SELECT completed, id, type, kind FROM {{schema}}.complete_and_reserve($1, $2, $3, NULL, $4)`),
		holdingIDs(hs), c.worker, holdingIDs(started), c.rng.IntN(4))
	type row struct {
		Completed int
		ID        *int64
		Type      *string
		Kind      *string
	}
	var got []row
	if err == nil {
		got, err = pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	}
	cancel()
	if err != nil {
		c.failed(err)
		return false
	}
	now := time.Now()
	n := 0
	refused := map[int64]bool{}
	for _, r := range got {
		n = r.Completed
		if r.ID == nil {
			continue
		}
		switch *r.Kind {
		case "taken":
			s.taken.Add(1)
			c.held = append(c.held, &holding{task: *r.ID, typ: *r.Type, worker: c.worker, claimed: now, tentativ: inTx})
		case "reserved":
			s.reservedTasks.Add(1)
			c.reserved = append(c.reserved, &holding{task: *r.ID, typ: *r.Type, worker: c.worker})
		case "refused":
			s.refusedStarts.Add(1)
			refused[*r.ID] = true
		}
	}
	for _, x := range started {
		if !refused[x.task] {
			// Started before the call returned: held from its sending on.
			s.startedReserved.Add(1)
			x.claimed = sent
			c.held = append(c.held, x)
		}
	}
	s.completed.Add(int64(n))
	c.accepted(rt, hs, n, sent)
	return true
}

// trimReserved gives back the reservations of types the claimer no longer
// holds a task of (none could start in place of one), and now and then
// one more at random: as a worker does.
func (c *stormClaimer) trimReserved(q querier) bool {
	s := c.s
	var back []*holding
	keep := c.reserved[:0]
	for _, r := range c.reserved {
		if !slices.ContainsFunc(c.held, func(h *holding) bool { return h.typ == r.typ }) || c.rng.IntN(20) == 0 {
			back = append(back, r)
			continue
		}
		keep = append(keep, r)
	}
	c.reserved = keep
	if len(back) == 0 {
		return true
	}
	ctx, cancel := call()
	defer cancel()
	var n int
	if err := q.QueryRow(ctx, s.SQL(`SELECT {{schema}}.release($1, $2)`), holdingIDs(back), c.worker).Scan(&n); err != nil {
		c.failed(err)
		return false
	}
	return true
}

// accepted records a finish of hs that the runtime applied to n of them:
// when to all, each was still owned; else which were is unknown.
func (c *stormClaimer) accepted(rt *roundTx, hs []*holding, n int, sent time.Time) {
	if n != len(hs) {
		c.s.lostFinishes.Add(int64(len(hs) - n))
		return
	}
	c.record(rt, hs, sent)
}

func (c *stormClaimer) record(rt *roundTx, hs []*holding, sent time.Time) {
	if rt != nil {
		rt.finishes = append(rt.finishes, finishRec{hs: hs, sent: sent})
		return
	}
	c.finished(hs, sent)
}

// ---------------------------------------------------------------------------
// The killer

// track and untrack keep the backend pid of a claimer's connection, the
// only ones the killer may terminate.
func (s *storm) track(c *stormClaimer, pid uint32) { c.pid.Store(pid) }

func (s *storm) untrack(c *stormClaimer) { c.pid.Store(0) }

// killer terminates, every 0.6–1.4 s, the connection of a random claimer
// (only connections this storm opened: their pid and application_name).
func (s *storm) killer() {
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	conn, err := s.connect()
	if err != nil {
		s.classify("killer", err, false)
		return
	}
	defer conn.Close(context.Background())
	for s.chaos.Load() {
		if !s.nap(rng, 600*time.Millisecond, 1400*time.Millisecond) || !s.chaos.Load() {
			return
		}
		c := s.claimers[rng.IntN(len(s.claimers))]
		pid := c.pid.Load()
		if pid == 0 {
			continue
		}
		wasKilled := c.killed.Swap(true)
		ctx, cancel := call()
		var done bool
		err := conn.QueryRow(ctx, `SELECT coalesce((SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		                                          WHERE pid = $1 AND application_name = $2), false)`, int32(pid), s.appName).Scan(&done)
		cancel()
		if err != nil {
			s.classify("killer", err, false)
		}
		if done {
			s.kills.Add(1)
		} else if !wasKilled {
			c.killed.Store(false) // not this connection (it was gone already)
		}
	}
}

// ---------------------------------------------------------------------------
// Leaders

// leader is a leader contender: heartbeat, elect_leader and, when elected,
// run_maintenance, every ~200 ms.
func (s *storm) leader(i int) {
	rng := rand.New(rand.NewPCG(uint64(200+i), uint64(time.Now().UnixNano())))
	var conn *pgx.Conn
	worker, gen := "", 0
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for s.nap(rng, 150*time.Millisecond, 250*time.Millisecond) {
		if conn == nil || conn.IsClosed() {
			var err error
			if conn, err = s.connect(); err != nil {
				s.classify(fmt.Sprintf("leader %d", i), err, false)
				conn = nil
				continue
			}
			worker = ""
		}
		actor := fmt.Sprintf("leader %d (%s)", i, worker)
		ctx, cancel := call()
		err := func() error {
			if worker == "" {
				gen++
				w := fmt.Sprintf("storm-l%d-g%d", i, gen)
				if _, err := conn.Exec(ctx, s.SQL(`SELECT {{schema}}.register_worker($1, 'storm', 1)`), w); err != nil {
					return err
				}
				worker = w
			}
			var alive, elected bool
			if err := conn.QueryRow(ctx, s.SQL(`SELECT {{schema}}.heartbeat($1)`), worker).Scan(&alive); err != nil {
				return err
			}
			if !alive {
				worker = ""
				return nil
			}
			if err := conn.QueryRow(ctx, s.SQL(`SELECT {{schema}}.elect_leader($1)`), worker).Scan(&elected); err != nil {
				return err
			}
			if !elected {
				return nil
			}
			var rec *int64
			if err := conn.QueryRow(ctx, s.SQL(`SELECT ({{schema}}.run_maintenance($1)->>'recovered')::bigint`), worker).Scan(&rec); err != nil {
				return err
			}
			s.maintenances.Add(1)
			s.lastMaint.Store(time.Now().UnixNano())
			if rec != nil {
				s.recovered.Add(*rec)
			}
			return nil
		}()
		cancel()
		if err != nil {
			s.classify(actor, err, false)
		}
	}
}

// ---------------------------------------------------------------------------
// The applier

// applier applies stormState(1), stormState(2), … every 0.5–1 s, through
// reconcile.PlanAndApply as pgseq apply --auto-approve does, and requires
// each to converge (the next plan is empty).
func (s *storm) applier() {
	rng := rand.New(rand.NewPCG(9, uint64(time.Now().UnixNano())))
	for step := 1; s.chaos.Load(); step++ {
		if !s.nap(rng, 500*time.Millisecond, time.Second) || !s.chaos.Load() {
			return
		}
		desired := stormState(step)
		ctx, cancel := call()
		s.applying.Store(time.Now().UnixNano())
		_, err := reconcile.PlanAndApply(ctx, s.applyPool, s.Schema, desired, applier.Options{Client: "test", Version: "test"}, nil)
		s.applying.Store(0)
		s.applyEnd.Store(time.Now().UnixNano())
		if err == nil {
			s.applies.Add(1)
			p, perr := reconcile.Plan(ctx, s.applyPool, s.Schema, desired)
			switch {
			case perr != nil:
				err = perr
			case !p.Empty():
				var addrs []string
				cleanup := true
				for _, ch := range p.Changes {
					addrs = append(addrs, fmt.Sprintf("%s %s %v slots %s reasons %v", ch.Action, ch.Address, ch.Attributes, jsonOf(ch.Slots), ch.Reasons))
					sl := ch.Slots
					cleanup = cleanup && len(ch.Attributes) == 0 && sl != nil && sl.LimitBefore == sl.LimitAfter &&
						len(sl.Set) == 0 && !sl.Drop && len(sl.Remove) > 0
				}
				example := fmt.Sprintf("at %s, after apply %d the plan still has %d changes: %v", s.since(), step, len(p.Changes), addrs)
				if cleanup {
					// A drained group became empty between the apply and
					// the plan: the runtime moved on, the apply converged.
					s.notes.add("plans after an apply that only delete groups drained meanwhile", example)
				} else {
					s.v.add(vConverges, example)
				}
			}
		}
		cancel()
		if err != nil {
			s.classify(fmt.Sprintf("applier (step %d)", step), err, false)
		}
	}
}

// shorten returns a type's groups (used/capacity) for a message, cut short.
func shorten(groups *string) string {
	if groups == nil {
		return "none"
	}
	if len(*groups) > 120 {
		return (*groups)[:120] + "…"
	}
	return *groups
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// The sampler

// stormViolations counts the violations by kind and keeps a few examples.
type stormViolations struct {
	mu       sync.Mutex
	count    map[string]int
	examples map[string][]string
}

func (v *stormViolations) add(kind, example string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.count[kind]++
	if len(v.examples[kind]) < 5 {
		v.examples[kind] = append(v.examples[kind], example)
	}
}

// Violation kinds of the storm's own, beside the slot invariants that
// pgseqtest.CheckInvariants checks (and names) in every sample.
const (
	vStarved   = "5 due task waiting beside a free unit > 1s (no apply meanwhile)"
	vStarvedAp = "5 due task waiting beside a free unit > 1s (an apply ran meanwhile)"
	vTwice     = "6 a task owned by two workers at once"
	vQuiescent = "8 at rest: nothing pending or running, every used 0, nothing draining"
	vConverges = "9 the plan after an apply is empty"
)

// sampleTypesSQL: per task type, its limit, running tasks, free units,
// unfinished tasks, running tasks whose worker is dead, and its groups
// (used/capacity).
const sampleTypesSQL = `
SELECT tt.name, tt.concurrency,
       (SELECT count(*) FROM {{schema}}.tasks t WHERE t.type = tt.name AND t.status = 'running')::int,
       (SELECT coalesce(sum(greatest(s.capacity - s.used, 0)), 0) FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name)::int,
       (SELECT count(*) FROM {{schema}}.tasks t WHERE t.type = tt.name AND t.status IN ('pending', 'running'))::int,
       (SELECT count(*) FROM {{schema}}.tasks t JOIN {{schema}}.workers w ON w.id = t.worker_id
        WHERE t.type = tt.name AND t.status = 'running' AND w.dead_at IS NOT NULL)::int,
       (SELECT string_agg(s.slot_group || ':' || s.used || '/' || s.capacity, ' ' ORDER BY s.slot_group)
        FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name)
FROM {{schema}}.task_types tt
ORDER BY 1`

type typeRow struct {
	Name       string
	Limit      *int
	Running    int
	Free       int
	Unfinished int
	DeadRun    int
	Groups     *string
}

// sampler takes a sample every 20–50 ms until everyone stops.
func (s *storm) sampler() {
	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	conn, err := s.connect()
	if err != nil {
		s.classify("sampler", err, false)
		return
	}
	defer conn.Close(context.Background())
	waitingSince := map[int64]time.Time{} // due waiting tasks of types with a free unit, since first seen so
	reported := map[int64]bool{}
	for s.nap(rng, 20*time.Millisecond, 50*time.Millisecond) {
		began := time.Now()
		err := s.sample(conn, waitingSince, reported)
		took := int64(time.Since(began))
		s.sampleNs.Add(took)
		if took > s.sampleMaxNs.Load() {
			s.sampleMaxNs.Store(took)
		}
		if err != nil {
			s.sampleErrs.Add(1)
			s.classify("sampler", err, false)
			if conn.IsClosed() {
				return
			}
		}
	}
}

// sample checks the slot invariants (pgseqtest.CheckInvariants) in one
// REPEATABLE READ snapshot, and invariant 5 over consecutive samples: the
// at-rest I5 rows are the due waiting tasks beside a free unit of their
// type, reported once one has been seen so for more than stormStarve.
func (s *storm) sample(conn *pgx.Conn, waitingSince map[int64]time.Time, reported map[int64]bool) error {
	began := time.Now()
	ctx, cancel := call()
	defer cancel()
	// One round trip: the transaction and its queries in one batch.
	b := &pgx.Batch{}
	b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	b.Queue(pgseqtest.InvariantsSQL(s.Schema), true)
	b.Queue(s.SQL(sampleTypesSQL))
	b.Queue(`COMMIT`)
	br := conn.SendBatch(ctx, b)
	var (
		violations []pgseqtest.Violation
		types      []typeRow
	)
	err := func() error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		if violations, err = pgx.CollectRows(rows, pgx.RowToStructByPos[pgseqtest.Violation]); err != nil {
			return err
		}
		if rows, err = br.Query(); err != nil {
			return err
		}
		if types, err = pgx.CollectRows(rows, pgx.RowToStructByPos[typeRow]); err != nil {
			return err
		}
		_, err = br.Exec()
		return err
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if !conn.IsClosed() {
			_, _ = conn.Exec(ctx, `ROLLBACK`)
		}
		return err
	}
	n := s.samples.Add(1)
	when := fmt.Sprintf("sample %d at %s", n, s.since())

	byType := map[string]typeRow{}
	backlog := map[string]int{}
	for _, ty := range types {
		byType[ty.Name] = ty
		backlog[ty.Name] = ty.Unfinished
		if ty.DeadRun > 0 {
			s.deadRunning.Add(1)
		}
		if ty.Limit == nil {
			continue
		}
		if m, ok := s.maxRunning.Load(ty.Name); !ok || m.(int) < ty.Running {
			s.maxRunning.Store(ty.Name, ty.Running)
		}
	}
	s.backlogMu.Lock()
	s.backlog = backlog
	s.backlogMu.Unlock()

	// Invariant 5: a due waiting task seen in consecutive samples while its
	// type had a free unit in each, for more than stormStarve.
	seen := map[int64]bool{}
	for _, v := range violations {
		if v.Invariant != pgseqtest.NoWaitBesideFree {
			s.v.add(v.Invariant, when+": "+v.Detail)
			continue
		}
		id := v.TaskIDs[0]
		seen[id] = true
		first, ok := waitingSince[id]
		if !ok {
			waitingSince[id] = began
			continue
		}
		if began.Sub(first) > stormStarve && !reported[id] {
			reported[id] = true
			ty := byType[v.TaskType]
			groups := shorten(ty.Groups)
			maint := "never"
			if last := s.lastMaint.Load(); last != 0 {
				maint = time.Since(time.Unix(0, last)).Round(time.Millisecond).String() + " ago"
			}
			apply, kind := "no apply during that time", vStarved
			if a := s.applying.Load(); a != 0 {
				apply = "an apply in flight for " + time.Since(time.Unix(0, a)).Round(time.Millisecond).String()
				kind = vStarvedAp
			} else if e := time.Unix(0, s.applyEnd.Load()); e.After(first) {
				apply = "an apply ended " + time.Since(e).Round(time.Millisecond).String() + " ago"
				kind = vStarvedAp
			}
			s.v.add(kind, fmt.Sprintf("%s: task %d (%s) due and waiting for %s while its type had free units in every sample (now %d free; groups used/capacity %s; %d running; last maintenance %s; %s)",
				when, id, v.TaskType, began.Sub(first).Round(time.Millisecond), ty.Free, groups, ty.Running, maint, apply))
		}
	}
	for id := range waitingSince {
		if !seen[id] {
			delete(waitingSince, id)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// The end

// quiescent checks, once everyone has stopped: used = holders for every
// group and, when the drain finished, nothing pending or running, every
// used 0, no type draining, no finished task holding a unit.
func (s *storm) quiescent(settled bool) {
	conn, err := s.connect()
	if err != nil {
		s.classify("final check", err, false)
		return
	}
	defer conn.Close(context.Background())
	ctx, cancel := call()
	defer cancel()
	// Everyone has stopped, but a leader may have stopped before its
	// maintenance repaired the rare waiting task beside a free unit: I5 is
	// left to the sampler.
	violations, err := pgseqtest.CheckInvariants(ctx, conn, s.Schema, false)
	if err != nil {
		s.classify("final check", err, false)
		return
	}
	for _, v := range violations {
		s.v.add(vQuiescent, "at rest: "+v.String())
	}
	var groups int
	var layout []string
	err = conn.QueryRow(ctx, s.SQL(`
SELECT count(*)::int, coalesce(array_agg(format('%s/%s:%s/%s', task_type, slot_group, used, capacity) ORDER BY task_type, slot_group)
                                FILTER (WHERE used <> 0 OR capacity = 0), '{}')
FROM {{schema}}.concurrency_slots`)).Scan(&groups, &layout)
	if err != nil {
		s.classify("final check", err, false)
		return
	}
	s.T.Logf("%d slot groups at rest; in use or draining (type/group:used/capacity): %v", groups, layout)
	var draining []string
	var leftovers []string
	err = conn.QueryRow(ctx, s.SQL(`SELECT coalesce(array_agg(name ORDER BY name), '{}') FROM {{schema}}.task_types WHERE draining`)).Scan(&draining)
	if err == nil {
		err = conn.QueryRow(ctx, s.SQL(`
SELECT coalesce(array_agg(format('task %s (%s) %s gate %s group %s run_at %s worker %s', id, type, status, gate,
                                 coalesce(slot_group::text, '-'), to_char(run_at, 'HH24:MI:SS.MS'), coalesce(worker_id, '-')) ORDER BY id), '{}')
FROM (SELECT * FROM {{schema}}.tasks
      WHERE status IN ('pending', 'claimed', 'running') OR (slot_group IS NOT NULL AND status NOT IN ('pending', 'running'))
      ORDER BY id LIMIT 10) t`)).Scan(&leftovers)
	}
	if err != nil {
		s.classify("final check", err, false)
		return
	}
	if settled && len(draining) > 0 {
		s.v.add(vQuiescent, fmt.Sprintf("at rest, nothing running: types %v still draining", draining))
	}
	if !settled {
		s.v.add(vQuiescent, fmt.Sprintf("the drain did not finish within %s: %s", stormSettle, strings.Join(leftovers, "; ")))
	} else if len(leftovers) > 0 {
		s.v.add(vQuiescent, "finished tasks still hold a unit: "+strings.Join(leftovers, "; "))
	}
}

// checkOverlaps checks invariant 6 on the holdings whose finish the runtime
// accepted: no two of one task overlap.
func (s *storm) checkOverlaps() {
	s.holdMu.Lock()
	defer s.holdMu.Unlock()
	byTask := map[int64][]*holding{}
	for _, h := range s.holdings {
		byTask[h.task] = append(byTask[h.task], h)
	}
	for id, hs := range byTask {
		sort.Slice(hs, func(i, j int) bool { return hs[i].claimed.Before(hs[j].claimed) })
		for i := range hs {
			for j := i + 1; j < len(hs); j++ {
				a, b := hs[i], hs[j]
				if b.claimed.Before(a.endSent) && a.claimed.Before(a.endSent) {
					s.v.add(vTwice, fmt.Sprintf("task %d (%s): %s held it from %s until it finished it at %s, but %s had claimed it at %s (and finished it at %s)",
						id, a.typ, a.worker, s.at(a.claimed), s.at(a.endSent), b.worker, s.at(b.claimed), s.at(b.endSent)))
				}
			}
		}
	}
}

func (s *storm) at(t time.Time) string { return "+" + t.Sub(s.start).Round(time.Microsecond).String() }

// report logs the figures and fails the test on any violation, deadlock or
// unexpected error.
func (s *storm) report() {
	t := s.T
	var statuses []string
	if conn, err := s.connect(); err == nil {
		ctx, cancel := call()
		rows, qerr := conn.Query(ctx, s.SQL(`SELECT status::text || ' ' || count(*) FROM {{schema}}.tasks GROUP BY status ORDER BY 1`))
		if qerr == nil {
			statuses, _ = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		cancel()
		conn.Close(context.Background())
	}
	s.idMu.Lock()
	distinct := len(s.ids)
	s.idMu.Unlock()
	var maxRun []string
	s.maxRunning.Range(func(k, v any) bool { maxRun = append(maxRun, fmt.Sprintf("%s %d", k, v)); return true })
	sort.Strings(maxRun)
	t.Logf("sampler: %d samples (%d failed), %s per sample on average, at most %s",
		s.samples.Load(), s.sampleErrs.Load(), (time.Duration(s.sampleNs.Load()) / time.Duration(max(1, s.samples.Load()))).Round(time.Microsecond),
		time.Duration(s.sampleMaxNs.Load()).Round(time.Microsecond))
	t.Logf("storm figures: %d samples (%d failed); %d applies; %d kills, %d deaths (%d zombie calls completing %d), %d claimers found themselves declared dead; %d maintenance runs recovering %d tasks",
		s.samples.Load(), s.sampleErrs.Load(), s.applies.Load(), s.kills.Load(), s.deaths.Load(), s.zombieCalls.Load(), s.zombieDone.Load(), s.declaredDead.Load(), s.maintenances.Load(), s.recovered.Load())
	t.Logf("tasks: %d enqueue calls (%d batches, %d transactions rolled back on purpose, %d scheduled), %d distinct committed ids; %d claims of %d tasks in %d rounds (%d in transactions, %d rolled back on purpose); %d completed, %d taken by complete_and_take or complete_and_reserve, %d reserved successors (%d started, %d refused), %d failed to retry, %d failed for good, %d released, %d finishes refused (not owned any more); %d holdings checked for overlaps",
		s.enqCalls.Load(), s.enqBatches.Load(), s.enqRolledBack.Load(), s.enqScheduled.Load(), distinct, s.claims.Load(), s.claimedTasks.Load(), s.rounds.Load(), s.txRounds.Load(), s.txRolledBack.Load(),
		s.completed.Load(), s.taken.Load(), s.reservedTasks.Load(), s.startedReserved.Load(), s.refusedStarts.Load(), s.failedRetry.Load(), s.failedFinal.Load(), s.released.Load(), s.lostFinishes.Load(), len(s.holdings))
	t.Logf("tasks by status at the end (completed ones older than 2s purged): %v; highest running per limited type: %v; samples seeing a task run for a worker already declared dead: %d",
		statuses, maxRun, s.deadRunning.Load())

	s.errMu.Lock()
	expected := fmt.Sprint(s.expected)
	deadlocks, nDeadlock, unexpected, nUnexp := s.deadlocks, s.nDeadlock, s.unexpected, s.nUnexp
	s.errMu.Unlock()
	t.Logf("expected errors: %s; 40P01 deadlocks: %d; unexpected errors: %d", expected, nDeadlock, nUnexp)

	var b strings.Builder
	s.v.mu.Lock()
	kinds := make([]string, 0, len(s.v.count))
	for k := range s.v.count {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n[%s] %d violations, e.g.:\n  %s", k, s.v.count[k], strings.Join(s.v.examples[k], "\n  "))
	}
	s.v.mu.Unlock()
	if nDeadlock > 0 {
		fmt.Fprintf(&b, "\n[40P01 deadlocks] %d, e.g.:\n  %s", nDeadlock, strings.Join(deadlocks, "\n  "))
	}
	if nUnexp > 0 {
		fmt.Fprintf(&b, "\n[unexpected errors] %d, e.g.:\n  %s", nUnexp, strings.Join(unexpected, "\n  "))
	}
	s.notes.mu.Lock()
	for k, n := range s.notes.count {
		t.Logf("note: %s: %d, e.g.:\n  %s", k, n, strings.Join(s.notes.examples[k], "\n  "))
	}
	s.notes.mu.Unlock()
	if b.Len() > 0 {
		t.Fatalf("storm: invariants broken or errors:%s", b.String())
	}
	require.Positive(t, s.samples.Load(), "the sampler must have sampled the storm")
	require.Positive(t, s.applies.Load(), "the applier must have applied")
}

// TestStormSampler checks TestStorm's checker against states that break
// an invariant on purpose (written straight into the tables), so that a
// storm failure is the runtime's and a storm pass means something: a clean
// state gives no violation, a broken slot invariant its name (each of them
// is checked by pgseqtest's TestCheckInvariantsFindsEachBrokenInvariant),
// and a due task waiting beside a free unit for more than a second of
// samples invariant 5.
func TestStormSampler(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.Pool(t), pgtest.Schema(t)
	pgseqtest.Apply(t, pool, schema, stormState(0)) // a 3, b 5, c 3, d 2
	s := newStorm(t, schema, time.Second)
	defer s.closePools()
	conn, err := s.connect()
	require.NoError(t, err)
	defer conn.Close(context.Background())
	q := s.On(conn) // the statements of the test itself
	waitingSince, reported := map[int64]time.Time{}, map[int64]bool{}
	sample := func() map[string]int {
		t.Helper()
		s.v = &stormViolations{count: map[string]int{}, examples: map[string][]string{}}
		require.NoError(t, s.sample(conn, waitingSince, reported))
		return s.v.count
	}

	// Three storm:a tasks running, two storm:b tasks holding a unit (one
	// running, one open).
	q.Exec(`SELECT {{schema}}.register_worker('w', 'h', 1)`)
	q.Exec(`SELECT {{schema}}.enqueue_batch(ARRAY['storm:a', 'storm:a', 'storm:a', 'storm:b'])`)
	q.Exec(`SELECT count(*) FROM {{schema}}.claim('storm', 'w', 10)`)
	q.Exec(`SELECT {{schema}}.enqueue('storm:b')`) // open, holding a unit
	require.Empty(t, sample(), "a consistent state")

	// A slot invariant: used drifts from the holders.
	q.Exec(`UPDATE {{schema}}.concurrency_slots SET used = used + 1 WHERE task_type = 'storm:d' AND slot_group = 1`)
	require.Equal(t, map[string]int{pgseqtest.UsedEqualsHolders: 1}, sample())
	q.Exec(`UPDATE {{schema}}.concurrency_slots SET used = used - 1 WHERE task_type = 'storm:d' AND slot_group = 1`)
	require.Empty(t, sample())

	// (5) a due task waiting beside a free unit of its type, for more than
	// a second of samples.
	q.Exec(`INSERT INTO {{schema}}.tasks (queue, type, gate) VALUES ('storm', 'storm:b', 'waiting')`)
	require.Empty(t, sample())
	time.Sleep(stormStarve / 2)
	require.Empty(t, sample())
	time.Sleep(stormStarve/2 + 100*time.Millisecond)
	require.Equal(t, map[string]int{vStarved: 1}, sample())
}
