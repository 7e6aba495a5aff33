package scenarios

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/scenarios/report"
	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// DefaultExplainTasks is how many pending tasks the explain workload seeds
// when the size sets none.
const DefaultExplainTasks = 1_000_000

// The runtime functions whose statements the explain workload plans
// (report.PlanEntry.Function).
const (
	FunctionClaim    = "claim"
	FunctionComplete = "complete"
)

// ExplainOptions configure RunExplain.
type ExplainOptions struct {
	// Pool is the database: the run's schema is created in it and dropped
	// at the end. Its role must be a superuser, to LOAD 'auto_explain'.
	Pool *pgxpool.Pool
	// Scenario is the explain scenario: its Config (the first queue and that
	// queue's task types are seeded and claimed from), its Explain spec, and
	// the labels copied into the result.
	Scenario scenariofile.Scenario
	// Size is the size to run at (the caller merges Quick under --quick).
	// Only Tasks is used: the pending tasks seeded (default
	// DefaultExplainTasks).
	Size scenariofile.Size
	// SchemaPrefix names the run's schema, <prefix>_<8 random hex digits>
	// (default "pgseq_bench").
	SchemaPrefix string
	// OutDir is where the plans are written, as
	// OutDir/<scenario name>/NN-<function>.json, NN numbering the plans in
	// the order they were logged; report.PlanEntry.File is relative to
	// OutDir. "" writes none (report.PlanEntry.File is then empty).
	OutDir string
}

// ExplainRun is what one explain run did besides taking its plans; the
// explain workload's report.ScenarioResult.Runs holds one ([]ExplainRun).
type ExplainRun struct {
	// Queue is the queue claimed from (the configuration's first).
	Queue string `json:"queue"`
	// Tasks were pending when the plans were taken: Open of them claimable
	// (unlimited, or holding a unit of their type), the others waiting in
	// their type's lane.
	Tasks int `json:"tasks"`
	Open  int `json:"open"`
	// Holders are the running tasks that hold all the units of the
	// saturated type, or of its key ExplainSaturatedKey when the type is
	// partitioned (scenariofile.ExplainSpec.Saturated; 0 without one).
	Holders int `json:"holders,omitempty"`
	// Batch is the batch claim was called with.
	Batch int `json:"batch"`
	// Claimed and Completed are what claim and complete returned in the
	// transaction that was rolled back; after the rollback every claimed
	// task was checked to be pending again and the slot usage unchanged.
	Claimed   int `json:"claimed"`
	Completed int `json:"completed"`
	// SeedSeconds is the time seeding took (inserts, ANALYZE and
	// CHECKPOINT).
	SeedSeconds float64 `json:"seed_seconds"`
}

//go:embed sql/explain_*.sql
var explainSQL embed.FS

// explainQuery returns the embedded statement sql/explain_<name>.sql for a
// schema.
func explainQuery(name, schema string) string {
	b, err := explainSQL.ReadFile("sql/explain_" + name + ".sql")
	if err != nil {
		panic("scenarios: no embedded statement " + name) // a build mistake, not a run-time condition
	}
	return migrations.Render(string(b), schema)
}

// ExplainSaturatedKey is the partition key the explain workload saturates
// when its saturated task type is partitioned: its tasks are the type's
// share of the seed, all waiting for the key, behind running tasks that
// hold the key's units.
const ExplainSaturatedKey = "saturated"

// Worker ids of the explain run: the one that claims, and the one whose
// running tasks hold the saturated type's (or key's) units.
const (
	explainWorker = "pgseq-explain"
	explainHolder = "pgseq-explain-holder"
)

// RunExplain runs the explain workload: in a fresh schema with the
// scenario's configuration it seeds Size.Tasks pending tasks in the state
// the runtime would have left them in, ANALYZEs them, then calls claim and
// complete in one transaction that is rolled back, with auto_explain
// logging the actual plan (ANALYZE, BUFFERS) of every statement they run.
// It returns the scenario's plans and its explain metrics; the schema is
// dropped before it returns, also on error.
func RunExplain(ctx context.Context, opts ExplainOptions) (res *report.ScenarioResult, err error) {
	x, err := newExplainer(opts)
	if err != nil {
		return nil, err
	}
	if err := explainNeedsSuperuser(ctx, opts.Pool); err != nil {
		return nil, err
	}
	x.schema = x.opts.SchemaPrefix + "_" + randomHex(4)
	defer func() {
		_, dropErr := opts.Pool.Exec(context.WithoutCancel(ctx), "DROP SCHEMA IF EXISTS "+pgx.Identifier{x.schema}.Sanitize()+" CASCADE")
		if dropErr != nil && err == nil {
			res, err = nil, fmt.Errorf("dropping schema %s: %w", x.schema, dropErr)
		}
	}()
	if err := applyConfig(ctx, opts.Pool, x.schema, opts.Scenario.Config); err != nil {
		return nil, err
	}

	run := ExplainRun{Queue: x.queue.Name, Tasks: x.tasks, Batch: x.batch}
	start := time.Now()
	layout, err := x.seed(ctx)
	if err != nil {
		return nil, err
	}
	run.Open, run.Holders = layout.open, len(layout.holders)+layout.keyHolders
	run.SeedSeconds = time.Since(start).Seconds()

	logged, ids, completed, err := x.capture(ctx)
	if err != nil {
		return nil, err
	}
	run.Claimed, run.Completed = len(ids), completed
	if err := x.checkRolledBack(ctx, layout, ids); err != nil {
		return nil, err
	}

	plans, err := x.plans(logged)
	if err != nil {
		return nil, err
	}
	return x.result(run, plans), nil
}

// explainer is one explain run.
type explainer struct {
	opts ExplainOptions
	// queue is the configuration's first queue, types its task types in
	// declaration order, sat the index of the saturated one (-1: none).
	queue catalog.Queue
	types []catalog.TaskType
	sat   int
	tasks int
	batch int
	// schema is the run's schema.
	schema string
}

// newExplainer checks the options and resolves the defaults.
func newExplainer(opts ExplainOptions) (*explainer, error) {
	sc := opts.Scenario
	if opts.Pool == nil {
		return nil, errors.New("scenarios: ExplainOptions.Pool is required")
	}
	if sc.Workload != "" && sc.Workload != scenariofile.WorkloadExplain {
		return nil, fmt.Errorf("scenario %q is a %s workload, not %s", sc.Name, sc.Workload, scenariofile.WorkloadExplain)
	}
	if opts.SchemaPrefix == "" {
		opts.SchemaPrefix = "pgseq_bench"
	}
	if n := len(opts.SchemaPrefix) + len("_") + 8; n > 63 {
		return nil, fmt.Errorf("schema prefix %q is too long: the run's schema name would have %d bytes, PostgreSQL keeps 63", opts.SchemaPrefix, n)
	}
	if opts.OutDir != "" && (sc.Name == "" || sc.Name == "." || sc.Name == ".." || strings.ContainsAny(sc.Name, `/\`)) {
		return nil, fmt.Errorf("scenario name %q cannot name the directory its plans are written to", sc.Name)
	}
	if len(sc.Config.Queues) == 0 {
		return nil, fmt.Errorf("scenario %q declares no queue: the explain workload claims from its first", sc.Name)
	}
	x := &explainer{opts: opts, queue: sc.Config.Queues[0], sat: -1, tasks: opts.Size.Tasks}
	for _, t := range sc.Config.TaskTypes {
		if t.Queue == x.queue.Name {
			x.types = append(x.types, t)
		}
	}
	if len(x.types) == 0 {
		return nil, fmt.Errorf("scenario %q: queue %q has no task type to seed", sc.Name, x.queue.Name)
	}
	if s := sc.Explain.Saturated; s != "" {
		x.sat = slices.IndexFunc(x.types, func(t catalog.TaskType) bool { return t.Name == s })
		if x.sat < 0 {
			return nil, fmt.Errorf("scenario %q: saturated task type %q is not a task type of queue %q", sc.Name, s, x.queue.Name)
		}
		switch t := x.types[x.sat]; {
		case !t.Limited() && !t.Partitioned():
			return nil, fmt.Errorf("scenario %q: saturated task type %q has no concurrency limit or partition block to saturate", sc.Name, s)
		case t.Limited() && t.Partitioned():
			return nil, fmt.Errorf("scenario %q: saturated task type %q has both a concurrency limit and a partition block; the explain workload saturates one of them", sc.Name, s)
		}
	}
	if x.tasks == 0 {
		x.tasks = DefaultExplainTasks
	}
	if x.tasks < 0 {
		return nil, fmt.Errorf("scenario %q: %d tasks", sc.Name, x.tasks)
	}
	x.batch = sc.Explain.Batch
	if x.batch == 0 {
		x.batch = x.queue.BatchSize
	}
	if x.batch < 1 {
		return nil, fmt.Errorf("scenario %q: claim batch %d must be at least 1", sc.Name, x.batch)
	}
	return x, nil
}

// explainNeedsSuperuser fails unless the pool's role is a superuser: only one may
// LOAD auto_explain.
func explainNeedsSuperuser(ctx context.Context, db *pgxpool.Pool) error {
	var role string
	var super bool
	if err := db.QueryRow(ctx, `SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&role, &super); err != nil {
		return fmt.Errorf("checking the role: %w", err)
	}
	if !super {
		return fmt.Errorf("the explain workload needs a superuser: it takes the plans inside claim and complete with auto_explain, "+
			"and LOAD 'auto_explain' is for superusers only; role %q is not one", role)
	}
	return nil
}

// explainSeed is one insert of pending tasks spread round robin over types:
// the parameters of sql/explain_seed_pending.sql.
type explainSeed struct {
	types      []string
	priorities []int
	limited    []bool
	// unitStart[i] is where type i's units start in units (from 1),
	// unitCount[i] how many of its first tasks hold one.
	unitStart []int
	unitCount []int
	units     []int
	// n tasks; the first's due time is first microseconds after the base.
	n     int
	first int
}

// explainLayout is what RunExplain seeds, derived from the configuration and
// the slot groups alone.
type explainLayout struct {
	// sat are the saturated type's pending tasks, all waiting, the oldest;
	// rest the others (either may have n = 0).
	sat, rest explainSeed
	// holders are the saturated type's units (slot groups, one element per
	// unit), held by running tasks.
	holders []int
	// keyHolders, for a partitioned saturated type, are the running tasks
	// holding its key ExplainSaturatedKey's units (its per-key limit); its
	// pending tasks then wait for that key.
	keyHolders int
	// unitTypes and unitGroups list every unit held (one element per unit).
	unitTypes  []string
	unitGroups []int
	// open is how many pending tasks are claimable.
	open int
}

// layoutExplainSeed spreads tasks evenly over types, as enqueue_batch would leave
// them when they were enqueued round robin: a limited type's first tasks
// take its free units (units[type]: its slot groups, each repeated as many
// times as its capacity) and the others wait. The saturated type (sat ≥ 0)
// gets its share first, all waiting: running tasks hold its units.
func layoutExplainSeed(types []catalog.TaskType, sat, tasks int, units map[string][]int) explainLayout {
	var l explainLayout
	share := func(i, n, m int) int { // the i-th of m types' share of n round robin
		if i < n%m {
			return n/m + 1
		}
		return n / m
	}
	rest := tasks
	if sat >= 0 {
		t := types[sat]
		l.sat = explainSeed{
			types: []string{t.Name}, priorities: []int{t.Priority}, limited: []bool{true},
			unitStart: []int{1}, unitCount: []int{0}, n: share(sat, tasks, len(types)),
		}
		rest -= l.sat.n
		if t.Partitioned() {
			l.keyHolders = t.Partition.Concurrency
		} else {
			l.holders = units[t.Name]
		}
		for _, g := range l.holders {
			l.unitTypes, l.unitGroups = append(l.unitTypes, t.Name), append(l.unitGroups, g)
		}
	}
	others := slices.Clone(types)
	if sat >= 0 {
		others = slices.Delete(others, sat, sat+1)
	}
	l.rest = explainSeed{n: rest, first: l.sat.n}
	if len(others) == 0 {
		l.rest.n = 0
		return l
	}
	for i, t := range others {
		count := share(i, rest, len(others))
		held := 0
		if t.Limited() {
			held = min(len(units[t.Name]), count)
		}
		l.rest.types = append(l.rest.types, t.Name)
		l.rest.priorities = append(l.rest.priorities, t.Priority)
		l.rest.limited = append(l.rest.limited, t.Limited())
		l.rest.unitStart = append(l.rest.unitStart, len(l.rest.units)+1)
		l.rest.unitCount = append(l.rest.unitCount, held)
		for _, g := range units[t.Name][:held] {
			l.rest.units = append(l.rest.units, g)
			l.unitTypes, l.unitGroups = append(l.unitTypes, t.Name), append(l.unitGroups, g)
		}
		if t.Limited() {
			l.open += held
		} else {
			l.open += count
		}
	}
	return l
}

// seed fills the schema: the pending tasks, the saturated type's holders
// and their worker, the slot usage; then ANALYZE and CHECKPOINT.
func (x *explainer) seed(ctx context.Context) (explainLayout, error) {
	db := x.opts.Pool
	units := map[string][]int{}
	rows, err := db.Query(ctx, migrations.Render(
		`SELECT task_type, slot_group, capacity FROM {{schema}}.concurrency_slots
		 WHERE capacity > 0 ORDER BY task_type, slot_group`, x.schema))
	if err != nil {
		return explainLayout{}, fmt.Errorf("reading the slot groups: %w", err)
	}
	var typ string
	var group, capacity int
	_, err = pgx.ForEachRow(rows, []any{&typ, &group, &capacity}, func() error {
		for range capacity {
			units[typ] = append(units[typ], group)
		}
		return nil
	})
	if err != nil {
		return explainLayout{}, fmt.Errorf("reading the slot groups: %w", err)
	}
	l := layoutExplainSeed(x.types, x.sat, x.tasks, units)

	// One transaction: now() is the same for every insert, so due times
	// follow insertion order.
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if l.keyHolders > 0 {
			if err := x.registerWorker(ctx, tx, explainHolder); err != nil {
				return err
			}
			t := x.types[x.sat]
			if _, err := tx.Exec(ctx, explainQuery("seed_key", x.schema),
				x.queue.Name, t.Name, ExplainSaturatedKey, t.Priority, l.keyHolders, explainHolder); err != nil {
				return fmt.Errorf("seeding the running tasks of %s key %q: %w", t.Name, ExplainSaturatedKey, err)
			}
			if _, err := tx.Exec(ctx, explainQuery("seed_key_waiting", x.schema),
				x.queue.Name, t.Name, ExplainSaturatedKey, t.Priority, l.sat.n); err != nil {
				return fmt.Errorf("seeding %s of %s key %q: %w", textfmt.Plural(l.sat.n, "waiting task"), t.Name, ExplainSaturatedKey, err)
			}
		}
		if len(l.holders) > 0 {
			if err := x.registerWorker(ctx, tx, explainHolder); err != nil {
				return err
			}
			t := x.types[x.sat]
			if _, err := tx.Exec(ctx, explainQuery("seed_holders", x.schema),
				x.queue.Name, t.Name, t.Priority, explainHolder, l.holders); err != nil {
				return fmt.Errorf("seeding the running tasks of %s: %w", t.Name, err)
			}
		}
		seeds := []explainSeed{l.sat, l.rest}
		if l.keyHolders > 0 {
			seeds = seeds[1:] // the saturated key's tasks are seeded above
		}
		for _, b := range seeds {
			if b.n == 0 {
				continue
			}
			tag, err := tx.Exec(ctx, explainQuery("seed_pending", x.schema), x.queue.Name,
				b.types, b.priorities, b.limited, b.unitStart, b.unitCount, b.units, b.n, b.first)
			if err != nil {
				return fmt.Errorf("seeding %s: %w", textfmt.Plural(b.n, "pending task"), err)
			}
			if int(tag.RowsAffected()) != b.n {
				return fmt.Errorf("seeding %s: %d inserted", textfmt.Plural(b.n, "pending task"), tag.RowsAffected())
			}
		}
		if _, err := tx.Exec(ctx, explainQuery("slots_used", x.schema), l.unitTypes, l.unitGroups); err != nil {
			return fmt.Errorf("setting the slot groups' usage: %w", err)
		}
		return nil
	})
	if err != nil {
		return l, err
	}
	if _, err := db.Exec(ctx, migrations.Render(`ANALYZE {{schema}}.tasks, {{schema}}.concurrency_slots, {{schema}}.partition_slots,
		{{schema}}.task_types, {{schema}}.queues, {{schema}}.workers`, x.schema)); err != nil {
		return l, fmt.Errorf("analyzing the seeded tasks: %w", err)
	}
	// Plans are taken from a checkpoint, so they do not pay for writing the
	// seed's dirty pages (the role is a superuser).
	if _, err := db.Exec(ctx, "CHECKPOINT"); err != nil {
		return l, fmt.Errorf("checkpoint after seeding: %w", err)
	}
	return l, nil
}

// explainExecer is what registerWorker needs: a pool, a connection or a
// transaction.
type explainExecer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// registerWorker registers a worker of the run's schema under id.
func (x *explainer) registerWorker(ctx context.Context, db explainExecer, id string) error {
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	if _, err := db.Exec(ctx, migrations.Render(`SELECT {{schema}}.register_worker($1, $2, 1, 'pgseq bench')`, x.schema), id, host); err != nil {
		return fmt.Errorf("registering worker %s: %w", id, err)
	}
	return nil
}

// explainLogged is one statement's plan as auto_explain logged it, with the
// runtime function it was logged under.
type explainLogged struct {
	function string
	ms       float64
	plan     autoExplainLog
}

// autoExplainLog is auto_explain's JSON output (log_format = json).
type autoExplainLog struct {
	QueryText string          `json:"Query Text"`
	Plan      json.RawMessage `json:"Plan"`
}

// capture registers the claiming worker and, on a connection of its own
// with auto_explain logging every statement's plan to it, calls claim and
// complete in a transaction that it rolls back. It returns the plans of
// the statements inside them in the order they were logged, the ids
// claimed and the number complete reported.
func (x *explainer) capture(ctx context.Context) (plans []explainLogged, ids []int64, completed int, err error) {
	if err := x.registerWorker(ctx, x.opts.Pool, explainWorker); err != nil {
		return nil, nil, 0, err
	}
	var mu sync.Mutex
	var notices []string
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := notices
		notices = nil
		return out
	}
	cfg := x.opts.Pool.Config().ConnConfig.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, n.Message)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("connecting for the plans: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LOAD 'auto_explain'`); err != nil {
		return nil, nil, 0, fmt.Errorf("loading auto_explain (it ships with the PostgreSQL server): %w", err)
	}
	for _, s := range []string{
		`SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_analyze = on`,
		`SET auto_explain.log_buffers = on`,
		`SET auto_explain.log_timing = on`,
		`SET auto_explain.log_nested_statements = on`,
		`SET auto_explain.log_format = json`,
		`SET client_min_messages = log`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	take() // nothing should have been logged yet; start clean

	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	s := pgx.Identifier{x.schema}.Sanitize()
	// The admission repair that a short claim runs at most every 200 ms
	// (migration 012) has just run: the plans are those of the claim every
	// other call pays. (Rolled back with the claim.)
	if _, err := tx.Exec(ctx, `UPDATE `+s+`.runtime_clock SET repaired_at = clock_timestamp()`); err != nil {
		return nil, nil, 0, fmt.Errorf("marking the admission repair done: %w", err)
	}
	take()
	claimSQL := `SELECT t.id FROM ` + s + `.claim($1, $2, $3) AS t`
	rows, err := tx.Query(ctx, claimSQL, x.queue.Name, explainWorker, x.batch)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("claim: %w", err)
	}
	if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		return nil, nil, 0, fmt.Errorf("claim: %w", err)
	}
	claimNotices := take()
	completeSQL := `SELECT ` + s + `.complete($1, $2)`
	if err := tx.QueryRow(ctx, completeSQL, ids, explainWorker).Scan(&completed); err != nil {
		return nil, nil, 0, fmt.Errorf("complete: %w", err)
	}
	completeNotices := take()
	if err := tx.Rollback(ctx); err != nil {
		return nil, nil, 0, fmt.Errorf("rolling back the claim: %w", err)
	}

	for _, call := range []struct {
		function string
		notices  []string
	}{{FunctionClaim, claimNotices}, {FunctionComplete, completeNotices}} {
		n := 0
		for _, msg := range call.notices {
			ms, plan, ok, err := parseAutoExplain(msg)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("reading a plan logged under %s: %w", call.function, err)
			}
			if q := strings.TrimSpace(plan.QueryText); !ok || q == claimSQL || q == completeSQL {
				// Another message, or a top-level call: its portal stays open
				// in the transaction until the next statement, so a call's
				// own plan is logged under the one after it.
				continue
			}
			plans = append(plans, explainLogged{function: call.function, ms: ms, plan: plan})
			n++
		}
		if n == 0 {
			return nil, nil, 0, fmt.Errorf("auto_explain logged no plan of a statement inside %s", call.function)
		}
	}
	return plans, ids, completed, nil
}

// parseAutoExplain reads an auto_explain message, "duration: 1.234 ms
// plan:\n{…}": ok is false for any other message.
func parseAutoExplain(msg string) (ms float64, plan autoExplainLog, ok bool, err error) {
	head, body, found := strings.Cut(msg, "plan:\n")
	if !found || !strings.HasPrefix(head, "duration: ") {
		return 0, plan, false, nil
	}
	d := strings.TrimSpace(strings.TrimPrefix(head, "duration: "))
	d, found = strings.CutSuffix(d, " ms")
	if !found {
		return 0, plan, false, fmt.Errorf("unexpected duration in %q", head)
	}
	if ms, err = strconv.ParseFloat(strings.TrimSpace(d), 64); err != nil {
		return 0, plan, false, fmt.Errorf("unexpected duration in %q: %w", head, err)
	}
	if err := json.Unmarshal([]byte(body), &plan); err != nil {
		return 0, plan, false, fmt.Errorf("plan is not JSON (is auto_explain.log_format json?): %w", err)
	}
	if len(plan.Plan) == 0 {
		return 0, plan, false, errors.New("plan without a Plan node")
	}
	return ms, plan, true, nil
}

// explainNode is the part of an EXPLAIN (FORMAT JSON) node the metrics read.
// Loops-averaged counts (rows, rows removed) are per loop, as EXPLAIN
// shows them.
type explainNode struct {
	NodeType         string        `json:"Node Type"`
	FunctionName     string        `json:"Function Name"`
	RelationName     string        `json:"Relation Name"`
	IndexName        string        `json:"Index Name"`
	ActualRows       float64       `json:"Actual Rows"`
	ActualLoops      float64       `json:"Actual Loops"`
	RemovedByFilter  float64       `json:"Rows Removed by Filter"`
	RemovedByRecheck float64       `json:"Rows Removed by Index Recheck"`
	SharedHitBlocks  int64         `json:"Shared Hit Blocks"`
	SharedReadBlocks int64         `json:"Shared Read Blocks"`
	Plans            []explainNode `json:"Plans"`
}

// explainTasksTable is the relation the metrics look at.
const explainTasksTable = "tasks"

// explainPlanStats computes a statement's plan figures: the indexes its nodes scan
// (in plan order, once each), its sequential scans of tasks, the most rows
// one node read from tasks ((rows + rows removed by a filter or an index
// recheck) × loops) and the shared buffers its top node touched. Every
// node is walked, InitPlans, SubPlans and CTEs included (they are children
// in "Plans").
func explainPlanStats(raw json.RawMessage) (indexes []string, seqScans int, rows float64, buffers int64, err error) {
	var top explainNode
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, 0, 0, 0, fmt.Errorf("reading a plan: %w", err)
	}
	var walk func(n *explainNode)
	walk = func(n *explainNode) {
		switch n.NodeType {
		case "Index Scan", "Index Only Scan", "Bitmap Index Scan":
			if n.IndexName != "" && !slices.Contains(indexes, n.IndexName) {
				indexes = append(indexes, n.IndexName)
			}
		case "Seq Scan":
			if n.RelationName == explainTasksTable {
				seqScans++
			}
		}
		if n.RelationName == explainTasksTable {
			rows = max(rows, (n.ActualRows+n.RemovedByFilter+n.RemovedByRecheck)*n.ActualLoops)
		}
		for i := range n.Plans {
			walk(&n.Plans[i])
		}
	}
	walk(&top)
	return indexes, seqScans, rows, top.SharedHitBlocks + top.SharedReadBlocks, nil
}

// calledRuntimeFunction returns the runtime function a statement only
// calls ("SELECT * FROM {{schema}}.claim_open(…)": its top node scans the
// function), else "". The called function's own statements are logged as
// plans of their own, so the caller's buffers and time count them again.
func calledRuntimeFunction(p autoExplainLog, quotedSchema string) (string, error) {
	var top explainNode
	if err := json.Unmarshal(p.Plan, &top); err != nil {
		return "", fmt.Errorf("reading a plan: %w", err)
	}
	if top.NodeType != "Function Scan" || top.FunctionName == "" ||
		!strings.Contains(p.QueryText, quotedSchema+"."+top.FunctionName+"(") {
		return "", nil
	}
	return top.FunctionName, nil
}

// explainPlanFile is a plan as written to its file: the shape of EXPLAIN
// (ANALYZE, BUFFERS, FORMAT JSON), a one-element array, with the
// statement's text.
type explainPlanFile struct {
	QueryText     string          `json:"Query Text"`
	Plan          json.RawMessage `json:"Plan"`
	ExecutionTime float64         `json:"Execution Time"`
}

// plans turns the logged plans into entries, writing their files.
func (x *explainer) plans(logged []explainLogged) ([]report.PlanEntry, error) {
	dir := ""
	if x.opts.OutDir != "" {
		dir = filepath.Join(x.opts.OutDir, x.opts.Scenario.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the plans' directory: %w", err)
		}
	}
	quoted := pgx.Identifier{x.schema}.Sanitize()
	out := make([]report.PlanEntry, 0, len(logged))
	for i, lp := range logged {
		e := report.PlanEntry{
			Function:    lp.function,
			Statement:   strings.TrimSpace(strings.ReplaceAll(lp.plan.QueryText, quoted, "{{schema}}")),
			ExecutionMS: lp.ms,
		}
		var err error
		if e.Indexes, e.SeqScans, e.RowsExamined, e.Buffers, err = explainPlanStats(lp.plan.Plan); err != nil {
			return nil, fmt.Errorf("plan %d (%s): %w", i+1, lp.function, err)
		}
		if e.Indexes == nil {
			e.Indexes = []string{}
		}
		if e.Calls, err = calledRuntimeFunction(lp.plan, quoted); err != nil {
			return nil, fmt.Errorf("plan %d (%s): %w", i+1, lp.function, err)
		}
		if dir != "" {
			name := fmt.Sprintf("%02d-%s.json", i+1, lp.function)
			b, err := json.MarshalIndent([]explainPlanFile{{QueryText: lp.plan.QueryText, Plan: lp.plan.Plan, ExecutionTime: lp.ms}}, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("plan %d (%s): %w", i+1, lp.function, err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
				return nil, fmt.Errorf("writing plan %d (%s): %w", i+1, lp.function, err)
			}
			e.File = x.opts.Scenario.Name + "/" + name
		}
		out = append(out, e)
	}
	return out, nil
}

// checkRolledBack checks that the rolled-back claim left the seeded state
// as it was: the claimed tasks pending without a worker, as many pending
// and other tasks as seeded, and as many units held.
func (x *explainer) checkRolledBack(ctx context.Context, l explainLayout, ids []int64) error {
	var pending, other, used, keysUsed, claimedPending int
	if err := x.opts.Pool.QueryRow(ctx, explainQuery("state", x.schema), ids).Scan(&pending, &other, &used, &keysUsed, &claimedPending); err != nil {
		return fmt.Errorf("checking the state after the rollback: %w", err)
	}
	holders := len(l.holders) + l.keyHolders
	if pending != x.tasks || other != holders || used != len(l.unitGroups) || keysUsed != l.keyHolders || claimedPending != len(ids) {
		return fmt.Errorf("the rolled-back claim left changes in schema %s: %d pending (seeded %d), %d in other states (seeded %d), "+
			"%d units held (seeded %d), %d key units held (seeded %d), %d of the %d claimed tasks pending",
			x.schema, pending, x.tasks, other, holders, used, len(l.unitGroups), keysUsed, l.keyHolders, claimedPending, len(ids))
	}
	return nil
}

// result builds the scenario's result from its run and plans.
func (x *explainer) result(run ExplainRun, plans []report.PlanEntry) *report.ScenarioResult {
	sc := x.opts.Scenario
	size := x.opts.Size
	size.Tasks = x.tasks
	var rows, buffers, seq, claimMS float64
	for _, p := range plans {
		rows = max(rows, p.RowsExamined)
		seq += float64(p.SeqScans)
		if p.Function == FunctionClaim && p.Calls == "" {
			buffers += float64(p.Buffers)
			claimMS += p.ExecutionMS
		}
	}
	metric := func(name string, v float64) report.MetricResult {
		m, _ := scenariofile.LookupMetric(scenariofile.WorkloadExplain, name)
		return report.MetricResult{Name: name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter, Samples: []float64{v}, Value: v, N: 1}
	}
	return &report.ScenarioResult{
		Name: sc.Name, Description: sc.Description, Workload: scenariofile.WorkloadExplain, Against: sc.Against,
		File: sc.DeclRange.Filename, Size: size,
		Metrics: []report.MetricResult{
			metric("rows_examined", rows),
			metric("buffers", buffers),
			metric("seq_scans", seq),
			metric("claim_time", claimMS/1000),
		},
		Runs:  []ExplainRun{run},
		Plans: plans,
	}
}
