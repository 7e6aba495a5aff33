package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgseq/pgseq/catalog"
	"github.com/stretchr/testify/require"
)

func intPtr(v int) *int { return &v }

func queueWith(name string, edit func(q *catalog.Queue)) catalog.Queue {
	q := catalog.DefaultQueue(name)
	if edit != nil {
		edit(&q)
	}
	return q
}

func dur(d time.Duration) catalog.Duration { return catalog.Duration(d) }

// TestValid loads each configuration under testdata/valid and compares the
// desired state with the expected one.
func TestValid(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	cases := []struct {
		path string
		want catalog.State
	}{
		{
			path: "testdata/valid/minimal.hcl",
			want: catalog.State{
				Queues:    []catalog.Queue{catalog.DefaultQueue("default")},
				TaskTypes: []catalog.TaskType{{Name: "email:send", Queue: "default"}},
			},
		},
		{
			path: "testdata/valid/full.hcl",
			want: catalog.State{
				Queues: []catalog.Queue{
					catalog.DefaultQueue("default"),
					{
						Name: "media", BatchSize: 10, MaxRetries: 0,
						Backoff:       catalog.Backoff{Initial: dur(250 * time.Millisecond), Max: dur(90 * time.Minute), Factor: 1.5, Jitter: 0},
						WorkerTimeout: dur(5 * time.Minute), LeaderLease: dur(time.Minute),
						Retention: catalog.Retention{Completed: dur(12 * time.Hour), DeadLetter: dur(90 * day)},
					},
				},
				TaskTypes: []catalog.TaskType{
					{Name: "Reports_daily", Queue: "default", MaxRetries: intPtr(0), Priority: 1000},
					{Name: "email:send", Queue: "default", Concurrency: 500, MaxRetries: intPtr(5)},
					{Name: "media:render.4k", Queue: "media", Concurrency: 4, Priority: -10},
				},
			},
		},
		{
			path: "testdata/valid/partial.hcl",
			want: catalog.State{
				Queues: []catalog.Queue{
					queueWith("bulk-import_2", func(q *catalog.Queue) { q.Retention.DeadLetter = dur(36 * time.Hour) }),
					queueWith("default", func(q *catalog.Queue) { q.BatchSize = 500; q.Backoff.Factor = 3 }),
				},
				TaskTypes: []catalog.TaskType{
					{Name: "import:csv", Queue: "bulk-import_2", Concurrency: catalog.MaxConcurrency},
					{Name: "ping", Queue: "default"},
				},
			},
		},
		{
			path: "testdata/valid/counters.hcl",
			want: catalog.State{
				Queues:    []catalog.Queue{},
				TaskTypes: []catalog.TaskType{},
				Counters: []catalog.Counter{
					{
						Name: "_line_no", Table: "public.order_lines", Column: "line_no", Scope: []string{"tenant_id", "order_id"},
						Start: 1, LockTimeout: dur(250 * time.Millisecond), Strategy: catalog.StrategyAdvisoryLock,
					},
					{Name: "invoice_number", Prefix: "INV", Start: 1000, LockTimeout: catalog.DefaultCounterLockTimeout, IdempotencyWindow: dur(10 * time.Minute)},
					{
						Name: "issue_key", Table: "public.issues", Column: "seq", Prefix: "ISS",
						Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
					},
					{Name: "receipt_no", Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout},
					{
						Name: "task_index", Table: "public.tasks", Column: "index", Scope: []string{"project_id"},
						PrefixFrom: &catalog.PrefixSource{Table: "app.projects", Column: "key"},
						Start:      1, LockTimeout: dur(2 * time.Second), Strategy: catalog.StrategyCounterTable,
					},
					{
						Name: "ticket_number", Table: "support.Tickets", Column: "number",
						Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
					},
				},
			},
		},
		{
			path: "testdata/valid/multi",
			want: catalog.State{
				Queues: []catalog.Queue{
					catalog.DefaultQueue("default"),
					queueWith("email", func(q *catalog.Queue) { q.BatchSize = 50 }),
				},
				TaskTypes: []catalog.TaskType{
					{Name: "cleanup", Queue: "default"},
					{Name: "email:digest", Queue: "email"},
					{Name: "email:send", Queue: "email", Concurrency: 20},
				},
			},
		},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			t.Parallel()
			cfg, diags := Load(tc.path)
			require.Empty(t, diags, diags.Error())
			require.Equal(t, tc.want, cfg.State())
			for _, q := range tc.want.Queues {
				require.Contains(t, cfg.Queues, q.Name)
			}
			for _, task := range tc.want.TaskTypes {
				require.Contains(t, cfg.Tasks, task.Name)
			}
			for _, c := range tc.want.Counters {
				require.Contains(t, cfg.Counters, c.Name)
			}
			require.Len(t, cfg.Counters, len(tc.want.Counters))
		})
	}
}

// TestValidDirectoryCovered makes sure every configuration under
// testdata/valid is checked by TestValid.
func TestValidDirectoryCovered(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("testdata/valid")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) == ".hcl" {
			_, diags := Load(filepath.Join("testdata/valid", e.Name()))
			require.Empty(t, diags, "%s: %s", e.Name(), diags.Error())
		}
	}
}

func TestLoadMergesDirectoryInNameOrder(t *testing.T) {
	t.Parallel()
	cfg, diags := Load("testdata/valid/multi")
	require.Empty(t, diags)
	// Only the directory's own .hcl files are read.
	require.Len(t, cfg.Files, 2)
	require.Contains(t, cfg.Files, filepath.Join("testdata/valid/multi", "10-queues.hcl"))
	require.Contains(t, cfg.Files, filepath.Join("testdata/valid/multi", "20-tasks.hcl"))
	// Each object remembers the file and line that declared it.
	r := cfg.Queues["email"]
	require.Equal(t, filepath.Join("testdata/valid/multi", "10-queues.hcl"), r.Filename)
	require.Equal(t, 4, r.Start.Line)
	r = cfg.Tasks["cleanup"]
	require.Equal(t, filepath.Join("testdata/valid/multi", "20-tasks.hcl"), r.Filename)
	require.Equal(t, 11, r.Start.Line)
}

func TestLoadFilesAndDirectoriesTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	write("conf/a.hcl", `queue "default" {}`)
	extra := write("extra.conf", `task "x" {}`) // a named file need not end in .hcl

	// The same file named twice, through the directory and by itself, is read once.
	cfg, diags := Load(filepath.Join(dir, "conf"), extra, filepath.Join(dir, "conf", "a.hcl"))
	require.Empty(t, diags, diags.Error())
	require.Equal(t, []catalog.TaskType{{Name: "x", Queue: "default"}}, cfg.State().TaskTypes)
	require.Len(t, cfg.Files, 2)
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	noHCL := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(noHCL, "notes.txt"), []byte("hi"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(noHCL, "sub.hcl"), 0o755)) // a directory, not a file

	cases := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"no paths", nil, []string{"No configuration files"}},
		{"missing path", []string{filepath.Join(empty, "nope.hcl")}, []string{"Configuration path not found"}},
		{"empty directory", []string{empty}, []string{"No configuration files"}},
		{"directory without hcl files", []string{noHCL}, []string{"No configuration files"}},
		{"one good one missing", []string{"testdata/valid/minimal.hcl", "testdata/nope"}, []string{"Configuration path not found"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Load(tc.paths...)
			require.NotNil(t, cfg)
			require.True(t, diags.HasErrors())
			require.Equal(t, tc.want, diagLines(diags))
			require.NotEmpty(t, diags[0].Detail)
		})
	}
}

// TestParse covers language rules that the files under testdata do not.
func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		src   string
		want  catalog.State
		diags []string
	}{
		{
			name:  "empty configuration",
			src:   "# nothing yet\n",
			want:  catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}},
			diags: []string{"Configuration declares nothing"},
		},
		{
			name: "identifier labels and heredoc strings",
			src:  "queue default {\n  worker_timeout = <<EOT\n1m\nEOT\n}\ntask ping {}\n",
			want: catalog.State{
				Queues:    []catalog.Queue{queueWith("default", func(q *catalog.Queue) { q.WorkerTimeout = dur(time.Minute) })},
				TaskTypes: []catalog.TaskType{{Name: "ping", Queue: "default"}},
			},
		},
		{
			name: "whole numbers written with a fraction or exponent",
			src:  "queue \"default\" {\n  batch_size = 1e3\n  max_retries = 5.0\n}\n",
			want: catalog.State{
				Queues:    []catalog.Queue{queueWith("default", func(q *catalog.Queue) { q.BatchSize = 1000; q.MaxRetries = 5 })},
				TaskTypes: []catalog.TaskType{},
			},
		},
		{
			name: "zero durations where allowed",
			src:  "queue \"default\" {\n  backoff {\n    initial = \"0\"\n    max = \"0s\"\n  }\n  retention {\n    completed = \"0s\"\n  }\n}\n",
			want: catalog.State{
				Queues: []catalog.Queue{queueWith("default", func(q *catalog.Queue) {
					q.Backoff.Initial, q.Backoff.Max, q.Retention.Completed = 0, 0, 0
				})},
				TaskTypes: []catalog.TaskType{},
			},
		},
		{
			name:  "every error is collected",
			src:   "queue \"default\" {\n  batch_size = 0\n  max_retries = 1001\n}\ntask \"a\" {\n  concurrency = -1\n  priority = 0.5\n}\n",
			diags: []string{"2:16: Invalid batch_size", "3:17: Invalid max_retries", "6:17: Invalid concurrency", "7:14: Invalid priority"},
		},
		{
			name:  "an argument set twice in a nested block",
			src:   "queue \"default\" {\n  backoff {\n    initial = \"1s\"\n    initial = \"2s\"\n  }\n}\n",
			diags: []string{"4:5: Duplicate argument"},
		},
		{
			name:  "a one-line block with several arguments is not HCL",
			src:   "queue \"default\" {\n  backoff { initial = \"1s\"  max = \"10m\" }\n}\n",
			diags: []string{"2:29: Invalid single-argument block definition"},
		},
		{
			name:  "unknown queue without a close match",
			src:   "queue \"default\" {}\ntask \"a\" {\n  queue = \"reports\"\n}\n",
			diags: []string{"3:11: Unknown queue"},
		},
		{
			name:  "a list where a string is expected",
			src:   "queue \"default\" {}\ntask \"a\" {\n  queue = [\"default\"]\n}\n",
			diags: []string{"3:11: Incorrect value type"},
		},
		{
			name:  "numbers too large for any range",
			src:   "queue \"default\" {\n  batch_size = 1e400\n  backoff {\n    factor = 1e400\n  }\n}\n",
			diags: []string{"2:16: Invalid batch_size", "4:14: Invalid backoff.factor"},
		},
		{
			name:  "durations too long to represent",
			src:   "queue \"default\" {\n  leader_lease = \"999999999d\"\n}\n",
			diags: []string{"2:18: Invalid duration"},
		},
		{
			name:  "a syntax error stops the checks that need every file",
			src:   "queue \"default\" {}\ntask \"a\" {\n  queue = \"nope\"\n}\nqueue \"b\" {\n  batch_size =\n}\n",
			diags: []string{"6:15: Invalid expression"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags := Parse(map[string][]byte{"main.hcl": []byte(tc.src)})
			require.Equal(t, tc.diags, diagLines(diags))
			if !diags.HasErrors() {
				require.Equal(t, tc.want, cfg.State())
			}
		})
	}
}

func TestParseDuplicatesAcrossFilesFollowNameOrder(t *testing.T) {
	t.Parallel()
	_, diags := Parse(map[string][]byte{
		"b.hcl": []byte("queue \"default\" {}\ntask \"t\" {}\n"),
		"a.hcl": []byte("task \"t\" {}\n"),
	})
	require.Len(t, diags, 1)
	require.Equal(t, "Duplicate task", diags[0].Summary)
	require.Equal(t, "b.hcl", diags[0].Subject.Filename)
	require.Contains(t, diags[0].Detail, "a.hcl:1:6")
}

func TestStateIsACopy(t *testing.T) {
	t.Parallel()
	cfg, diags := Load("testdata/valid/full.hcl")
	require.Empty(t, diags)
	s := cfg.State()
	s.Queues[0].BatchSize = 1
	*s.TaskTypes[0].MaxRetries = 99
	s.TaskTypes = append(s.TaskTypes[:0], s.TaskTypes[1:]...)
	again := cfg.State()
	require.Equal(t, 100, again.Queues[0].BatchSize)
	require.Equal(t, 0, *again.TaskTypes[0].MaxRetries)
	require.Len(t, again.TaskTypes, 3)
}

func TestNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"default": true, "a": true, "email-high": true, "q_1": true,
		"Default": false, "1q": false, "": false, "q.x": false, "q:x": false,
		"a" + strings.Repeat("b", 62): true,
		"a" + strings.Repeat("b", 63): false,
	} {
		require.Equal(t, want, catalog.ValidQueueName(name), name)
	}
	long := "a:" + strings.Repeat("b", MaxTaskNameLen-2)
	for name, want := range map[string]bool{
		"email:send": true, "media:render.4k": true, "Reports_daily": true, "a:b:c": true, "a-b.c_d": true, long: true,
		long + "c": false, "email::send": false, ":send": false, "send:": false, "4k": false, "a b": false, "": false, "e/mail": false,
	} {
		require.Equal(t, want, catalog.ValidTaskName(name), name)
	}
}
