package plan_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
)

func intp(v int) *int { return &v }

// basePlan updates a queue, raises a limit 10 -> 20 (slot groups 11..20 of
// capacity 1), creates a task type and a standalone counter, and deletes a
// queue.
func basePlan(t testing.TB) *plan.Plan {
	t.Helper()
	def := catalog.DefaultQueue("default")
	old := catalog.DefaultQueue("old")
	render := catalog.TaskType{Name: "render", Queue: "default", Concurrency: 10}
	actual := catalog.State{
		Queues:    []catalog.Queue{def, old},
		TaskTypes: []catalog.TaskType{render},
		Live:      catalog.Live{Running: map[string]int{"render": 1}},
	}
	for i, c := range catalog.SlotLayout(10) {
		actual.Slots = append(actual.Slots, catalog.SlotRun{TaskType: "render", First: i + 1, Last: i + 1, Capacity: c})
	}
	def2 := def
	def2.BatchSize = 200
	render2 := render
	render2.Concurrency, render2.Priority = 20, 5
	desired := catalog.State{
		Queues:    []catalog.Queue{def2},
		TaskTypes: []catalog.TaskType{render2, {Name: "thumb", Queue: "default", MaxRetries: intp(2)}},
		Counters: []catalog.Counter{{Name: "invoice_number", Prefix: "INV", Start: 1000,
			LockTimeout: catalog.DefaultCounterLockTimeout}},
	}
	p := planner.Plan(desired, actual, planner.Options{Schema: "pgseq"})
	require.Equal(t, plan.Summary{Add: 2, Change: 2, Destroy: 1}, p.Summary)
	return p
}

func encode(t *testing.T, p *plan.Plan) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, p.Write(&b))
	return b.Bytes()
}

var checksumRE = regexp.MustCompile(`"checksum": "[0-9a-f]*"`)

// withChecksumOf puts the checksum of doc into edited: an edit that did not
// recompute it.
func withChecksumOf(doc, edited []byte) []byte {
	return checksumRE.ReplaceAll(edited, checksumRE.Find(doc))
}

// change returns the change of p addressed addr.
func change(t *testing.T, p *plan.Plan, addr string) *plan.Change {
	t.Helper()
	for i := range p.Changes {
		if p.Changes[i].Address == addr {
			return &p.Changes[i]
		}
	}
	t.Fatalf("no change %s", addr)
	return nil
}

func TestReadAcceptsWhatWriteWrites(t *testing.T) {
	t.Parallel()
	p := basePlan(t)
	doc := encode(t, p)
	require.Contains(t, string(doc), `"checksum": "`+p.Hash()+`"`)
	back, err := plan.Read(bytes.NewReader(doc))
	require.NoError(t, err)
	require.Equal(t, p.Hash(), back.Hash())
	require.Equal(t, p.Hash(), back.Checksum, "the checksum is the plan's hash")
	require.Empty(t, plan.Differences(p, back))

	// Whitespace around the document is not content.
	_, err = plan.Read(bytes.NewReader(append(append([]byte("\n  "), doc...), "\n\n"...)))
	require.NoError(t, err)
}

// Edits of the JSON text: the reader refuses anything but the document
// pgseq writes, so the checksum covers all that counts.
func TestReadRefusesMalformedDocuments(t *testing.T) {
	t.Parallel()
	doc := encode(t, basePlan(t))
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte {
			require.Contains(t, string(b), old)
			return []byte(strings.Replace(string(b), old, new, 1))
		}
	}
	tests := []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"trailing data", func(b []byte) []byte { return append(b, "x"...) }, "unexpected data after the plan document"},
		{"a second document", func(b []byte) []byte { return append(b, "{}"...) }, "unexpected data after the plan document"},
		{"unknown top-level field", replace(`"schema": "pgseq",`, `"schema": "pgseq", "surprise": 1,`), `unknown field "surprise"`},
		{"unknown field in a change", replace(`"action": "update",`, `"action": "update", "force": true,`), `unknown field "force"`},
		{"unknown field in after", replace(`"batch_size": 200,`, `"batch_size": 200, "turbo": true,`), `unknown field "turbo"`},
		{"unknown field in a nested block", replace(`"jitter": 0.2`, `"jitter": 0.2, "seed": 7`), `unknown field "seed"`},
		{"unknown field in slots", replace(`"limit_after": 20,`, `"limit_after": 20, "bonus": 5,`), `unknown field "bonus"`},
		{"unknown field in summary", replace(`"destroy": 1`, `"destroy": 1, "skip": 0`), `unknown field "skip"`},
		{"a key in another case", replace(`"schema": "pgseq"`, `"Schema": "pgseq"`), "Schema: unknown field"},
		{"a key twice", replace(`"schema": "pgseq",`, `"schema": "other", "schema": "pgseq",`), `the key "schema" appears twice`},
		{"a duration not written canonically", replace(`"worker_timeout": "30s"`, `"worker_timeout": "30000ms"`), `"30000ms" is not written the way pgseq writes it ("30s")`},
		{"a missing field", replace(`"changes": [`, `"changez": [`), `unknown field "changez"`},
		{"no format_version", replace(`"format_version": "1.0",`, ``), "no format_version"},
		{"format_version not MAJOR.MINOR", replace(`"format_version": "1.0"`, `"format_version": "1"`), `format_version "1" is not MAJOR.MINOR`},
		{"format_version with a patch", replace(`"format_version": "1.0"`, `"format_version": "1.0.1"`), "is not MAJOR.MINOR"},
		{"format_version with a prefix", replace(`"format_version": "1.0"`, `"format_version": "v1.0"`), "is not MAJOR.MINOR"},
		{"unknown major version", replace(`"format_version": "1.0"`, `"format_version": "2.0"`), `format_version "2.0" is not supported`},
		{"a type that is not one", replace(`"type": "task"`, `"type": "table"`), `unknown change type "table"`},
		{"not an object", func([]byte) []byte { return []byte(`[1, 2]`) }, "not a pgseq plan"},
		{"empty", func([]byte) []byte { return nil }, "not a pgseq plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := plan.Read(bytes.NewReader(tt.edit(append([]byte(nil), doc...))))
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestReadRefusesAMissingOrWrongChecksum(t *testing.T) {
	t.Parallel()
	doc := encode(t, basePlan(t))

	// No checksum at all: refused, whatever else the document says.
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc, &m))
	delete(m, "checksum")
	noSum, err := json.Marshal(m)
	require.NoError(t, err)
	_, err = plan.Read(bytes.NewReader(noSum))
	require.ErrorIs(t, err, plan.ErrChecksum)
	require.Contains(t, err.Error(), "the plan has no checksum")

	// A checksum that does not match: an accident (or an edit) is caught
	// before anything else is looked at.
	edited := []byte(strings.Replace(string(doc), `"priority": 5`, `"priority": 6`, 1))
	_, err = plan.Read(bytes.NewReader(edited))
	require.ErrorIs(t, err, plan.ErrChecksum)
	require.Contains(t, err.Error(), "changed after pgseq plan wrote it")
}

// Edits made on the plan with the checksum recomputed, as someone editing
// on purpose would: the checksum passes, and Validate refuses each, naming
// the change and the attribute. Without recomputing, the checksum refuses.
func TestReadRefusesPlansPgseqCouldNotHaveMade(t *testing.T) {
	t.Parallel()
	render := `task "render"`
	tests := []struct {
		name string
		edit func(p *plan.Plan)
		want string
	}{
		{"a capacity 100 times the layout's", func(p *plan.Plan) {
			change(t, p, render).Slots.Set[0].Capacity *= 100
		}, `changes[2] (task "render"): slots.set[0]: group 11 has capacity 100; the layout of limit 20 gives it 1`},
		{"a limit without its slot groups", func(p *plan.Plan) {
			change(t, p, render).After.(*catalog.TaskType).Concurrency = 2000
		}, `changes[2] (task "render"): slots.limit_after is 20, but the limit after the change is 2000`},
		{"a limit over the maximum", func(p *plan.Plan) {
			c := change(t, p, render)
			c.After.(*catalog.TaskType).Concurrency = 2_000_000
			c.Slots.LimitAfter = 2_000_000
		}, "after.concurrency: concurrency must be a whole number from 1 to 1000000; got 2000000"},
		{"a priority outside -1000..1000", func(p *plan.Plan) {
			change(t, p, render).After.(*catalog.TaskType).Priority = 50_000
		}, `changes[2] (task "render"): after.priority: priority must be a whole number from -1000 to 1000; got 50000`},
		{"a fake summary", func(p *plan.Plan) { p.Summary = plan.Summary{Add: 1} },
			"summary says 1 to add, 0 to change, 0 to destroy, but the changes add 2, change 2 and destroy 1"},
		{"a removed change", func(p *plan.Plan) { p.Changes = p.Changes[1:] },
			"but the changes add 2, change 1 and destroy 1"},
		{"an added change", func(p *plan.Plan) {
			q := catalog.DefaultQueue("zzz")
			p.Changes = append(p.Changes, plan.Change{Address: `queue "zzz"`, Kind: plan.KindQueue, Name: "zzz", Action: plan.Create, After: &q})
		}, `changes[5] (queue "zzz"): out of order`},
		{"an invalid schema", func(p *plan.Plan) { p.Schema = "Bad Schema!" }, `schema "Bad Schema!" is not a valid schema name`},
		{"a fingerprint that is not one", func(p *plan.Plan) { p.Fingerprint = "anything" }, `state_fingerprint "anything" is not a SHA-256`},
		{"an address of another object", func(p *plan.Plan) { change(t, p, render).Address = `task "thumb"` },
			`address "task \"thumb\"" does not match type and name (task "render")`},
		{"a name other than after's", func(p *plan.Plan) { change(t, p, render).After.(*catalog.TaskType).Name = "other" },
			`after.name "other" is not the change's name "render"`},
		{"an invalid task name", func(p *plan.Plan) {
			c := change(t, p, `task "thumb"`)
			c.Name, c.Address, c.After.(*catalog.TaskType).Name = "9 lives", `task "9 lives"`, "9 lives"
		}, `name "9 lives" is not a valid task name`},
		{"a create with a before", func(p *plan.Plan) {
			c := change(t, p, `task "thumb"`)
			c.Before = c.After
		}, "a create has an after and no before"},
		{"changed attributes that did not change", func(p *plan.Plan) {
			change(t, p, render).Attributes = []string{"queue"}
		}, `changed_attributes ["queue"] do not match before and after (["concurrency" "priority"])`},
		{"an update of a queue that changes nothing", func(p *plan.Plan) {
			c := change(t, p, `queue "default"`)
			c.After.(*catalog.Queue).BatchSize = c.Before.(*catalog.Queue).BatchSize
			c.Attributes = nil
		}, "an update of a queue changes no attribute"},
		{"a queue setting out of range", func(p *plan.Plan) {
			change(t, p, `queue "default"`).After.(*catalog.Queue).Backoff.Jitter = 3
		}, "after.backoff.jitter: backoff.jitter must be a number from 0 to 1; got 3"},
		{"a counter prefix in lower case", func(p *plan.Plan) {
			change(t, p, `counter "invoice_number"`).After.(*catalog.Counter).Prefix = "inv"
		}, `after.prefix: "inv" is not a valid prefix`},
		{"a slot group removed inside the layout", func(p *plan.Plan) {
			change(t, p, render).Slots.Remove = []int{3}
		}, "slots.remove[0]: group 3 is part of the layout of limit 20 (20 groups)"},
		{"slot groups on a queue", func(p *plan.Plan) {
			change(t, p, `queue "default"`).Slots = &plan.SlotChange{Drop: true}
		}, "slots: a queue has no slot groups"},
		{"dropped slots of a type that keeps its limit", func(p *plan.Plan) {
			s := change(t, p, render).Slots
			s.Drop, s.Set = true, nil
		}, "slots.drop deletes every slot group, but the task type keeps a limit of 20"},
		{"changes out of order", func(p *plan.Plan) { p.Changes[0], p.Changes[1] = p.Changes[1], p.Changes[0] }, "out of order or repeated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := encode(t, basePlan(t))
			p := basePlan(t)
			tt.edit(p)
			require.ErrorContains(t, p.Validate(), tt.want)
			edited := encode(t, p) // checksum recomputed

			_, err := plan.Read(bytes.NewReader(edited))
			require.ErrorIs(t, err, plan.ErrInvalid)
			require.Contains(t, err.Error(), tt.want)

			_, err = plan.Read(bytes.NewReader(withChecksumOf(orig, edited)))
			require.ErrorIs(t, err, plan.ErrChecksum, "without a recomputed checksum the checksum refuses it")
		})
	}
}

func TestDifferences(t *testing.T) {
	t.Parallel()
	render := `task "render"`
	tests := []struct {
		name string
		edit func(p *plan.Plan)
		want []string
	}{
		{"the same plan", func(*plan.Plan) {}, nil},
		{"live values only", func(p *plan.Plan) {
			c := change(t, p, render)
			n := 7
			c.Context.Running = &n
			c.Reasons = []string{"something else"}
			c.Slots.Used, c.Slots.Remove, c.Slots.Draining = 7, []int{21}, []int{21}
			p.Warnings = []string{"a warning"}
		}, nil},
		{"another after value", func(p *plan.Plan) { change(t, p, render).After.(*catalog.TaskType).Priority = 9 },
			[]string{`task "render": the plan writes other values than are needed now: priority 5 -> 9`}},
		{"another before value", func(p *plan.Plan) { change(t, p, render).Before.(*catalog.TaskType).Priority = 3 },
			[]string{`task "render": changed in the database since the plan was made: priority 0 -> 3`}},
		{"other slot groups", func(p *plan.Plan) { change(t, p, render).Slots.Set = nil },
			[]string{`task "render": slot groups: the plan would set group:capacity 11:1 12:1 13:1 14:1 15:1 16:1 17:1 18:1 19:1 20:1; now they need to stay as they are`}},
		{"a change fewer", func(p *plan.Plan) { p.Changes = p.Changes[1:] },
			[]string{`queue "default": the plan would update it; now it needs no change`}},
		{"a change more", func(p *plan.Plan) {
			before := catalog.TaskType{Name: "zz", Queue: "default"}
			p.Changes = append(p.Changes, plan.Change{Address: `task "zz"`, Kind: plan.KindTask, Name: "zz", Action: plan.Delete, Before: &before})
		}, []string{`task "zz": would now also be destroyed`}},
		{"a change that only trims drained groups", func(p *plan.Plan) {
			zz := catalog.TaskType{Name: "zz", Queue: "default", Concurrency: 4}
			p.Changes = append(p.Changes, plan.Change{Address: `task "zz"`, Kind: plan.KindTask, Name: "zz", Action: plan.Update,
				Before: &zz, After: &zz, Slots: &plan.SlotChange{LimitAfter: 4, Remove: []int{21}}})
		}, nil},
		{"another action", func(p *plan.Plan) {
			c := change(t, p, `task "thumb"`)
			c.Action, c.Before = plan.Update, c.After
		}, []string{`task "thumb": the plan would create it; now it would be updated`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := basePlan(t)
			tt.edit(now)
			require.Equal(t, tt.want, plan.Differences(basePlan(t), now))
		})
	}
}
