package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/pgseq/pgseq/catalog"
	"github.com/stretchr/testify/require"
)

// standalone returns a standalone counter with every default.
func standalone(name string) catalog.Counter {
	return catalog.Counter{Name: name, Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout}
}

// attached returns an attached counter with every default.
func attached(name, table, column string) catalog.Counter {
	c := standalone(name)
	c.Table, c.Column, c.Strategy = table, column, catalog.StrategyCounterTable
	return c
}

// TestParseCounters covers counter rules that the files under testdata do
// not.
func TestParseCounters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		src   string
		want  []catalog.Counter
		diags []string
	}{
		{
			name: "null counts as not set",
			src:  "counter \"n\" {\n  table = null\n  column = null\n  scope = null\n  strategy = null\n  prefix = null\n  start = null\n  lock_timeout = null\n  idempotency_window = null\n}\n",
			want: []catalog.Counter{standalone("n")},
		},
		{
			name: "bounds are inclusive",
			src:  "counter \"a\" {\n  start = 4611686018427387904\n  lock_timeout = \"1h\"\n}\ncounter \"b\" {\n  lock_timeout = \"1ms\"\n  idempotency_window = \"1s\"\n}\n",
			want: []catalog.Counter{
				func() catalog.Counter {
					c := standalone("a")
					c.Start = 1 << 62
					c.LockTimeout = dur(time.Hour)
					return c
				}(),
				func() catalog.Counter {
					c := standalone("b")
					c.LockTimeout, c.IdempotencyWindow = dur(time.Millisecond), dur(time.Second)
					return c
				}(),
			},
		},
		{
			name: "identifiers with dollar signs, underscores and capitals; longest names",
			src: "counter \"" + "_" + strings.Repeat("z", 62) + "\" {\n  table = \"_s$.T$1\"\n  column = \"" + "C" + strings.Repeat("$", 62) + "\"\n  scope = [\"_\"]\n}\n" +
				"counter \"b\" {\n  table = \"" + strings.Repeat("s", 63) + "." + strings.Repeat("t", 63) + "\"\n  column = \"n\"\n}\n",
			want: []catalog.Counter{
				func() catalog.Counter {
					c := attached("_"+strings.Repeat("z", 62), "_s$.T$1", "C"+strings.Repeat("$", 62))
					c.Scope = []string{"_"}
					return c
				}(),
				attached("b", strings.Repeat("s", 63)+"."+strings.Repeat("t", 63), "n"),
			},
		},
		{
			name: "prefixes are stored upper-case",
			src:  "counter \"a\" {\n  prefix = \"inv2\"\n}\ncounter \"b\" {\n  prefix = \"X\"\n}\n",
			want: []catalog.Counter{
				func() catalog.Counter { c := standalone("a"); c.Prefix = "INV2"; return c }(),
				func() catalog.Counter { c := standalone("b"); c.Prefix = "X"; return c }(),
			},
		},
		{
			name: "a counter may number a column another counter uses as scope",
			src:  "counter \"a\" {\n  table = \"t\"\n  column = \"x\"\n}\ncounter \"b\" {\n  table = \"t\"\n  column = \"y\"\n  scope = [\"x\"]\n}\n",
			want: []catalog.Counter{
				attached("a", "public.t", "x"),
				func() catalog.Counter { c := attached("b", "public.t", "y"); c.Scope = []string{"x"}; return c }(),
			},
		},
		{
			name: "the same column name in two tables",
			src:  "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n}\ncounter \"b\" {\n  table = \"app.t\"\n  column = \"n\"\n}\n",
			want: []catalog.Counter{attached("a", "public.t", "n"), attached("b", "app.t", "n")},
		},
		{
			name:  "names",
			src:   "counter \"Invoice\" {}\ncounter \"1st\" {}\ncounter \"" + strings.Repeat("a", 64) + "\" {}\ncounter \"\" {}\n",
			diags: []string{"1:9: Invalid counter name", "2:9: Invalid counter name", "3:9: Invalid counter name", "4:9: Invalid counter name"},
		},
		{
			name: "table names",
			src: "counter \"a\" {\n  table = \"\"\n  column = \"n\"\n}\ncounter \"b\" {\n  table = \"db.app.t\"\n  column = \"n\"\n}\n" +
				"counter \"c\" {\n  table = \"app.\"\n  column = \"n\"\n}\ncounter \"d\" {\n  table = \"1t\"\n  column = \"n\"\n}\n" +
				"counter \"e\" {\n  table = \"" + strings.Repeat("t", 64) + "\"\n  column = \"n\"\n}\n",
			diags: []string{"2:11: Invalid table name", "6:11: Invalid table name", "10:11: Invalid table name", "14:11: Invalid table name", "18:11: Invalid table name"},
		},
		{
			name:  "column names",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"\"\n}\ncounter \"b\" {\n  table = \"t\"\n  column = \"\\\"n\\\"\"\n}\ncounter \"c\" {\n  table = \"t\"\n  column = \"n-1\"\n}\n",
			diags: []string{"3:12: Invalid column name", "7:12: Invalid column name", "11:12: Invalid column name"},
		},
		{
			name:  "scope elements must be strings",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  scope = [\"p\", 1, null]\n}\n",
			diags: []string{"4:17: Incorrect value type", "4:20: Incorrect value type"},
		},
		{
			name:  "wrong types",
			src:   "counter \"a\" {\n  table = 1\n  column = [\"n\"]\n  start = \"1\"\n  lock_timeout = 5\n  strategy = true\n}\n",
			diags: []string{"2:11: Incorrect value type", "3:12: Incorrect value type", "4:11: Incorrect value type", "5:18: Incorrect value type", "6:14: Incorrect value type"},
		},
		{
			name:  "prefix",
			src:   "counter \"a\" {\n  prefix = \"\"\n}\ncounter \"b\" {\n  prefix = \"1NV\"\n}\ncounter \"c\" {\n  prefix = \"ABCDEFGHIJKLMNOPQ\"\n}\n",
			diags: []string{"2:12: Invalid prefix", "5:12: Invalid prefix", "8:12: Invalid prefix"},
		},
		{
			name:  "prefix_from without a scope",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  prefix_from {\n    table = \"p\"\n    column = \"key\"\n  }\n}\n",
			diags: []string{"4:3: prefix_from needs one scope column"},
		},
		{
			name:  "prefix_from's own arguments",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  scope = [\"p\"]\n  prefix_from {\n    table = \"a b\"\n    column = \"k.k\"\n    key = 1\n  }\n}\n",
			diags: []string{"6:13: Invalid table name", "7:14: Invalid column name", "8:5: Unsupported argument"},
		},
		{
			name:  "prefix_from with neither argument",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  scope = [\"p\"]\n  prefix_from {}\n}\n",
			diags: []string{"5:3: Missing required argument", "5:3: Missing required argument"},
		},
		{
			name:  "prefix_from twice",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  scope = [\"p\"]\n  prefix_from {\n    table = \"p\"\n    column = \"key\"\n  }\n  prefix_from {\n    table = \"p\"\n    column = \"key\"\n  }\n}\n",
			diags: []string{"9:3: Duplicate prefix_from block"},
		},
		{
			name:  "an invalid table still makes the counter attached",
			src:   "counter \"a\" {\n  table = \"a b\"\n  column = \"n\"\n  scope = [\"p\"]\n  strategy = \"advisory_lock\"\n}\n",
			diags: []string{"2:11: Invalid table name"},
		},
		{
			name:  "unknown argument",
			src:   "counter \"a\" {\n  tabel = \"t\"\n}\n",
			diags: []string{"2:3: Unsupported argument"},
		},
		{
			name:  "strategy far from both",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  strategy = \"sequence\"\n}\n",
			diags: []string{"4:14: Invalid strategy"},
		},
		{
			name:  "references are rejected",
			src:   "counter \"a\" {\n  table = \"t\"\n  column = \"n\"\n  scope = [project_id]\n}\n",
			diags: []string{"4:12: Variables not allowed"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Parse(map[string][]byte{"main.hcl": []byte(tc.src)})
			require.Equal(t, tc.diags, diagLines(diags), diags.Error())
			for _, d := range diags {
				require.NotEmpty(t, d.Detail)
			}
			if tc.diags == nil {
				require.Equal(t, tc.want, cfg.State().Counters)
			}
		})
	}
}

func TestParseCounterDuplicatesAcrossFiles(t *testing.T) {
	t.Parallel()
	_, diags := Parse(map[string][]byte{
		"b.hcl": []byte("counter \"n\" {}\ncounter \"m\" {\n  table = \"public.t\"\n  column = \"x\"\n}\n"),
		"a.hcl": []byte("counter \"n\" {}\ncounter \"k\" {\n  table = \"t\"\n  column = \"x\"\n}\n"),
	})
	require.Equal(t, []string{"1:9: Duplicate counter", "4:12: Column already numbered"}, diagLines(diags))
	require.Equal(t, "b.hcl", diags[0].Subject.Filename)
	require.Contains(t, diags[0].Detail, "a.hcl:1:9")
	require.Contains(t, diags[1].Detail, `counter "k"`)
	require.Contains(t, diags[1].Detail, "a.hcl:4:12")
}

func TestCounterRangesAndDiag(t *testing.T) {
	t.Parallel()
	src := `counter "task_index" {
  table  = "tasks"
  column = "index"
  scope  = ["project_id"]
  prefix_from {
    table  = "app.projects"
    column = "key"
  }
}

counter "invoice_number" {
  start = 1000
}
`
	cfg, diags := Parse(map[string][]byte{"c.hcl": []byte(src)})
	require.Empty(t, diags)
	require.Len(t, cfg.Counters, 2)

	at := func(r hcl.Range) string {
		return r.Filename + ":" + strings.TrimPrefix(r.String(), r.Filename+":")
	}
	r := cfg.Counters["task_index"]
	for attr, want := range map[string]string{
		"":                   "c.hcl:1,1-21",
		"name":               "c.hcl:1,9-21",
		"table":              "c.hcl:2,12-19",
		"column":             "c.hcl:3,12-19",
		"scope":              "c.hcl:4,12-26",
		"scope[0]":           "c.hcl:4,13-25",
		"scope[1]":           "c.hcl:4,12-26", // no such element: the list
		"scope[x]":           "c.hcl:4,12-26",
		"prefix_from":        "c.hcl:5,3-14",
		"prefix_from.table":  "c.hcl:6,14-28",
		"prefix_from.column": "c.hcl:7,14-19",
		"start":              "c.hcl:1,1-21", // not a database object: the block
	} {
		require.Equal(t, want, at(r.Range(attr)), attr)
	}

	// A standalone counter's unset arguments fall back to its block.
	r = cfg.Counters["invoice_number"]
	for _, attr := range []string{"table", "column", "scope", "scope[0]", "prefix_from.table"} {
		require.Equal(t, "c.hcl:11,1-25", at(r.Range(attr)), attr)
	}

	d := cfg.CounterDiag("task_index", "scope[0]", "Unknown column", "Table public.tasks has no column project_id.")
	require.Equal(t, hcl.DiagError, d.Severity)
	require.Equal(t, "Unknown column", d.Summary)
	require.Equal(t, "Table public.tasks has no column project_id.", d.Detail)
	require.Equal(t, "c.hcl:4,13-25", at(*d.Subject))
	d = cfg.CounterDiag("nope", "table", "Unknown table", "detail")
	require.Nil(t, d.Subject)
	require.Equal(t, "Unknown table", d.Summary)
}

func TestCounterNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"invoice_number": true, "_": true, "_x1": true, "a" + strings.Repeat("b", 62): true,
		"a" + strings.Repeat("b", 63): false, "Invoice": false, "1a": false, "a-b": false, "": false, "a.b": false,
	} {
		require.Equal(t, want, catalog.ValidCounterName(name), name)
	}
	for name, want := range map[string]bool{
		"t": true, "_": true, "Tasks": true, "a$1": true, "x" + strings.Repeat("y", 62): true,
		"x" + strings.Repeat("y", 63): false, "$a": false, "1a": false, "a b": false, "a.b": false, `"a"`: false, "": false, "é": false,
	} {
		require.Equal(t, want, catalog.ValidIdentifier(name), name)
	}
	for name, want := range map[string]string{
		"tasks": "public.tasks", "app.tasks": "app.tasks", "public.tasks": "public.tasks",
		"": "", ".t": "", "app.": "", "a.b.c": "", "a b": "",
	} {
		got, ok := QualifyTable(name)
		require.Equal(t, want, got, name)
		require.Equal(t, want != "", ok, name)
	}
	for p, want := range map[string]bool{
		"INV": true, "inv": true, "A": true, "A1B2": true, "ABCDEFGHIJKLMNOP": true,
		"ABCDEFGHIJKLMNOPQ": false, "": false, "1A": false, "INV-": false, "I_V": false,
	} {
		require.Equal(t, want, catalog.ValidPrefix(p), p)
	}
}

func TestCounterNameSuggestion(t *testing.T) {
	t.Parallel()
	require.Contains(t, invalidCounterNameDetail("Task-Index"), `Did you mean "task_index"?`)
	require.NotContains(t, invalidCounterNameDetail("1x"), "Did you mean")
}

func TestWriteHCLCounters(t *testing.T) {
	t.Parallel()
	taskIndex := attached("task_index", "public.tasks", "index")
	taskIndex.Scope = []string{"project_id"}
	taskIndex.PrefixFrom = &catalog.PrefixSource{Table: "app.projects", Column: "key"}
	taskIndex.LockTimeout = dur(2 * time.Second)
	lines := attached("lines", "app.order_lines", "line_no")
	lines.Scope = []string{"tenant_id", "order_id"}
	lines.Strategy = catalog.StrategyAdvisoryLock
	invoice := standalone("invoice_number")
	invoice.Start, invoice.Prefix, invoice.IdempotencyWindow = 1000, "INV", dur(10*time.Minute)
	s := catalog.State{
		TaskTypes: []catalog.TaskType{{Name: "ping", Queue: "default"}},
		Counters:  []catalog.Counter{taskIndex, standalone("receipt"), lines, invoice, attached("tickets", "public.tickets", "number")},
	}
	want := `task "ping" {
  queue    = "default"
  priority = 0
}

counter "invoice_number" {
  prefix             = "INV"
  start              = 1000
  lock_timeout       = "5s"
  idempotency_window = "10m"
}

counter "lines" {
  table        = "app.order_lines"
  column       = "line_no"
  scope        = ["tenant_id", "order_id"]
  start        = 1
  lock_timeout = "5s"
  strategy     = "advisory_lock"
}

counter "receipt" {
  start        = 1
  lock_timeout = "5s"
}

counter "task_index" {
  table  = "public.tasks"
  column = "index"
  scope  = ["project_id"]
  prefix_from {
    table  = "app.projects"
    column = "key"
  }
  start        = 1
  lock_timeout = "2s"
  strategy     = "counter_table"
}

counter "tickets" {
  table        = "public.tickets"
  column       = "number"
  scope        = []
  start        = 1
  lock_timeout = "5s"
  strategy     = "counter_table"
}
`
	require.Equal(t, want, string(WriteHCL(s)))
	require.Equal(t, "task_index", s.Counters[0].Name, "WriteHCL must not reorder its argument")
}

func TestStateCountersAreACopy(t *testing.T) {
	t.Parallel()
	cfg, diags := Load("testdata/valid/counters.hcl")
	require.Empty(t, diags)
	s := cfg.State()
	for i := range s.Counters {
		if s.Counters[i].Name == "task_index" {
			s.Counters[i].Scope[0] = "changed"
			s.Counters[i].PrefixFrom.Column = "changed"
		}
	}
	s.Counters = s.Counters[:1]
	again := cfg.State()
	require.Len(t, again.Counters, 6)
	for _, c := range again.Counters {
		if c.Name == "task_index" {
			require.Equal(t, []string{"project_id"}, c.Scope)
			require.Equal(t, "key", c.PrefixFrom.Column)
		}
	}
}
