package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
)

// dbState is what the edited-plan tests watch: it must not move.
type dbState struct {
	capacity, applies, priority, taskTypes int
}

func (c *cli) dbState() dbState {
	c.T.Helper()
	var s dbState
	c.Scalar(&s.capacity, `SELECT coalesce(sum(capacity), 0) FROM {{schema}}.concurrency_slots WHERE task_type = 'render'`)
	c.Scalar(&s.applies, `SELECT count(*) FROM {{schema}}.applies`)
	c.Scalar(&s.priority, `SELECT priority FROM {{schema}}.task_types WHERE name = 'render'`)
	c.Scalar(&s.taskTypes, `SELECT count(*) FROM {{schema}}.task_types`)
	return s
}

var checksumLine = regexp.MustCompile(`"checksum": "[0-9a-f]*"`)

// A saved plan edited by hand is refused, exit 1, and the database does not
// change (issue 7, defect 4): with the checksum left as it was, the
// checksum refuses it; with the checksum recomputed, the plan's own checks
// do, naming the change and the attribute.
func TestEditedPlanFilesAreRefused(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, limit10)).code)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	r := c.run("plan", "--out", planFile, writeConfig(t, `
queue "default" {}
task "render" {
  concurrency = 20
  priority    = 5
}
task "thumb" {}
`))
	require.Equal(t, 0, r.code, r.stderr)
	orig, err := os.ReadFile(planFile)
	require.NoError(t, err)
	want := c.dbState()
	require.Equal(t, dbState{capacity: 10, applies: 1, priority: 0, taskTypes: 1}, want)

	other := c.Schema + "_other"
	tests := []struct {
		name string
		edit func(p *plan.Plan)
		// refused says why a plan with a recomputed checksum is refused.
		refused string
	}{
		{"a capacity", func(p *plan.Plan) { p.Changes[0].Slots.Set[0].Capacity = 100 },
			`changes[0] (task "render"): slots.set[0]: group 11 has capacity 100; the layout of limit 20 gives it 1`},
		{"a limit", func(p *plan.Plan) { p.Changes[0].After.(*catalog.TaskType).Concurrency = 2000 },
			`changes[0] (task "render"): slots.limit_after is 20, but the limit after the change is 2000`},
		{"a priority", func(p *plan.Plan) { p.Changes[0].After.(*catalog.TaskType).Priority = 50_000 },
			`changes[0] (task "render"): after.priority: priority must be a whole number from -1000 to 1000; got 50000`},
		{"the summary", func(p *plan.Plan) { p.Summary = plan.Summary{Add: 40, Change: 2} },
			"summary says 40 to add, 2 to change, 0 to destroy, but the changes add 1, change 1 and destroy 0"},
		{"a removed change", func(p *plan.Plan) { p.Changes = p.Changes[:1] },
			"summary says 1 to add, 1 to change, 0 to destroy, but the changes add 0, change 1 and destroy 0"},
		{"an added change", func(p *plan.Plan) {
			evil := catalog.TaskType{Name: "zz", Queue: "default", Concurrency: 1}
			p.Changes = append(p.Changes, plan.Change{Address: `task "zz"`, Kind: plan.KindTask, Name: "zz", Action: plan.Create, After: &evil,
				Slots: &plan.SlotChange{LimitAfter: 1, Set: []plan.GroupCapacity{{Group: 1, Capacity: 1}}}})
		}, "summary says 1 to add, 1 to change, 0 to destroy, but the changes add 2, change 1 and destroy 0"},
		{"the schema, to an invalid name", func(p *plan.Plan) { p.Schema = "Bad Schema" },
			`schema "Bad Schema" is not a valid schema name`},
		{"the schema, to another schema", func(p *plan.Plan) { p.Schema = other },
			"saved plan is stale"},
	}
	// Without --schema, apply takes the plan's schema (other, above).
	runPlan := func(args ...string) result {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"--database-url", c.url}, args...), strings.NewReader(""), &out, &errb)
		return result{code: code, stdout: out.String(), stderr: errb.String()}
	}
	for _, tt := range tests {
		var p plan.Plan
		require.NoError(t, json.Unmarshal(orig, &p), tt.name)
		tt.edit(&p)
		var recomputed bytes.Buffer
		require.NoError(t, p.Write(&recomputed))
		stale := checksumLine.ReplaceAll(recomputed.Bytes(), checksumLine.Find(orig))
		require.NotEqual(t, orig, stale, tt.name)

		for _, variant := range []struct {
			doc  []byte
			want string
		}{
			{stale, "plan file checksum does not match: the content was changed after pgseq plan wrote it"},
			{recomputed.Bytes(), tt.refused},
		} {
			path := filepath.Join(dir, "edited.json")
			require.NoError(t, os.WriteFile(path, variant.doc, 0o644))
			for _, args := range [][]string{{"apply", path}, {"apply", "--allow-destroy", "--auto-approve", path}} {
				r := runPlan(args...)
				require.Equal(t, exitError, r.code, "%s: %v\n%s%s", tt.name, args, r.stdout, r.stderr)
				require.Contains(t, r.stderr, variant.want, tt.name)
				require.NotContains(t, r.stdout, "Apply complete", tt.name)
				require.Equal(t, want, c.dbState(), "%s: the database is unchanged", tt.name)
			}
		}
	}
	var exists bool
	require.NoError(t, pgtest.Pool(t).QueryRow(context.Background(),
		`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, other).Scan(&exists))
	require.False(t, exists, "nothing created in the other schema")

	// The plan as written applies.
	r = c.run("apply", planFile)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, dbState{capacity: 20, applies: 2, priority: 5, taskTypes: 2}, c.dbState())
}

// A saved plan with destructive changes says how to apply it, and needs
// --allow-destroy to be applied.
func TestSavedDestructivePlanNeedsAllowDestroy(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, "queue \"default\" {}\nqueue \"old\" {}\n")).code)
	c.Exec(`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x')`)

	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := c.run("plan", "--out", planFile, writeConfig(t, `queue "default" {}`))
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "It has destructive changes, which need --allow-destroy. To apply exactly this plan: pgseq apply --allow-destroy "+planFile)

	r = c.run("apply", planFile)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "re-run with --allow-destroy")
	var queues int
	c.Scalar(&queues, `SELECT count(*) FROM {{schema}}.queues`)
	require.Equal(t, 2, queues, "nothing applied")

	r = c.run("apply", "--allow-destroy", planFile)
	require.Equal(t, 0, r.code, r.stderr)
	c.Scalar(&queues, `SELECT count(*) FROM {{schema}}.queues`)
	require.Equal(t, 1, queues)

	r = c.run("apply", "--help")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "[--allow-destroy] PLANFILE")
	require.Contains(t, r.stdout, "need --allow-destroy, for a PLANFILE too")

	// A plan without destructive changes says nothing of it.
	r = c.run("plan", "--out", planFile, writeConfig(t, "queue \"default\" {}\nqueue \"new\" {}\n"))
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "To apply exactly this plan: pgseq apply "+planFile+"\n")
}

// plan and apply decide alike, by content, whether a path is a saved plan
// or configuration (issue 7, defect 14): a configuration file with another
// extension is configuration to both; a plan file named .hcl is a plan to
// both.
func TestPlanAndApplyReadAPathAlike(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()

	config := filepath.Join(dir, "pgseq.conf")
	require.NoError(t, os.WriteFile(config, []byte(limit10), 0o644))
	r := c.run("plan", "--detailed-exitcode", config)
	require.Equal(t, exitChanges, r.code, r.stderr)
	r = c.run("apply", "--auto-approve", config)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Apply complete!")

	planFile := filepath.Join(dir, "next.hcl")
	r = c.run("plan", "--out", planFile, writeConfig(t, limit20))
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("plan", planFile)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, planFile+" is a saved plan (a JSON document), not a configuration: apply it with pgseq apply "+planFile)
	r = c.run("apply", planFile)
	require.Equal(t, 0, r.code, r.stderr)
	var capacity int
	c.Scalar(&capacity, `SELECT sum(capacity) FROM {{schema}}.concurrency_slots`)
	require.Equal(t, 20, capacity)
}

// Two applies of different configurations at once both succeed, one after
// the other, each planned under the apply lock against what it finds; the
// database ends as the second declares (issue 7, defect 5). The first waits
// behind a lock held by the test, so both are queued on it when it goes.
func TestConcurrentAppliesRunInTurn(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, limit10)).code)
	ctx := context.Background()
	pool := pgtest.Pool(t)

	holder, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck // released below
	require.NoError(t, applier.Lock(ctx, holder, pool, c.Schema, time.Second))
	waiting := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool {
			var w int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks
				WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
				  AND ((classid::bigint << 32) | objid::bigint) = $1`, applier.LockKey(c.Schema)).Scan(&w))
			return w == n
		}, 30*time.Second, 20*time.Millisecond, "%d applies waiting for the lock", n)
	}

	first, second := make(chan result, 1), make(chan result, 1)
	go func() { first <- c.run("apply", "--auto-approve", "--lock-timeout", "1m", writeConfig(t, limit20)) }()
	waiting(1)
	go func() {
		second <- c.run("apply", "--auto-approve", "--lock-timeout", "1m", writeConfig(t, `
queue "default" {}
task "render" { concurrency = 30 }
`))
	}()
	waiting(2)
	require.NoError(t, holder.Rollback(ctx))

	for i, ch := range []chan result{first, second} {
		r := <-ch
		require.Equal(t, 0, r.code, "apply %d:\n%s%s", i+1, r.stdout, r.stderr)
		require.Contains(t, r.stdout, "Apply complete! 0 added, 1 changed, 0 destroyed.", "apply %d", i+1)
	}
	var capacity, applies int
	c.Scalar(&capacity, `SELECT sum(capacity) FROM {{schema}}.concurrency_slots WHERE task_type = 'render'`)
	c.Scalar(&applies, `SELECT count(*) FROM {{schema}}.applies`)
	require.Equal(t, 30, capacity, "the second apply's configuration")
	require.Equal(t, 3, applies)
}
