package catalog_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/spec"
)

func intp(v int) *int { return &v }

// attrs returns the attributes Validate found wrong, in order.
func attrs(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var es catalog.Errors
	require.True(t, errors.As(err, &es), "%v", err)
	var out []string
	for _, e := range es {
		out = append(out, e.Attr)
	}
	return out
}

func TestQueueValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(q *catalog.Queue)
		want []string
	}{
		{"defaults", func(*catalog.Queue) {}, nil},
		{"bounds", func(q *catalog.Queue) {
			q.BatchSize, q.MaxRetries, q.Backoff.Factor, q.Backoff.Jitter = 10_000, 1000, 100, 1
		}, nil},
		{"name", func(q *catalog.Queue) { q.Name = "Default" }, []string{"name"}},
		{"batch_size 0", func(q *catalog.Queue) { q.BatchSize = 0 }, []string{"batch_size"}},
		{"batch_size too large", func(q *catalog.Queue) { q.BatchSize = 10_001 }, []string{"batch_size"}},
		{"max_retries negative", func(q *catalog.Queue) { q.MaxRetries = -1 }, []string{"max_retries"}},
		{"worker_timeout short", func(q *catalog.Queue) { q.WorkerTimeout = catalog.Duration(500e6) }, []string{"worker_timeout"}},
		{"leader_lease short", func(q *catalog.Queue) { q.LeaderLease = 0 }, []string{"leader_lease"}},
		{"factor below 1", func(q *catalog.Queue) { q.Backoff.Factor = 0.5 }, []string{"backoff.factor"}},
		{"factor NaN", func(q *catalog.Queue) { q.Backoff.Factor = math.NaN() }, []string{"backoff.factor"}},
		{"jitter above 1", func(q *catalog.Queue) { q.Backoff.Jitter = 2 }, []string{"backoff.jitter"}},
		{"max below initial", func(q *catalog.Queue) { q.Backoff.Initial = q.Backoff.Max + 1 }, []string{"backoff.max"}},
		{"negative retention", func(q *catalog.Queue) { q.Retention.Completed = -1 }, []string{"retention.completed"}},
		{"several", func(q *catalog.Queue) { q.BatchSize, q.MaxRetries = 0, 5000 }, []string{"batch_size", "max_retries"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := catalog.DefaultQueue("default")
			tt.edit(&q)
			require.Equal(t, tt.want, attrs(t, q.Validate()))
		})
	}
}

func TestTaskTypeValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		task catalog.TaskType
		want []string
	}{
		{"unlimited", catalog.TaskType{Name: "email:send", Queue: "default"}, nil},
		{"bounds", catalog.TaskType{Name: "a", Queue: "q", Concurrency: 1_000_000, MaxRetries: intp(1000), Priority: -1000}, nil},
		{"name", catalog.TaskType{Name: "9x", Queue: "default"}, []string{"name"}},
		{"queue", catalog.TaskType{Name: "a", Queue: "Q"}, []string{"queue"}},
		{"concurrency negative", catalog.TaskType{Name: "a", Queue: "q", Concurrency: -1}, []string{"concurrency"}},
		{"concurrency too large", catalog.TaskType{Name: "a", Queue: "q", Concurrency: 1_000_001}, []string{"concurrency"}},
		{"max_retries", catalog.TaskType{Name: "a", Queue: "q", MaxRetries: intp(-1)}, []string{"max_retries"}},
		{"priority", catalog.TaskType{Name: "a", Queue: "q", Priority: 50_000}, []string{"priority"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, attrs(t, tt.task.Validate()))
		})
	}
}

func TestCounterValidate(t *testing.T) {
	t.Parallel()
	attached := catalog.Counter{Name: "task_index", Table: "app.tasks", Column: "index", Scope: []string{"project_id"},
		PrefixFrom: &catalog.PrefixSource{Table: "app.projects", Column: "key"}, Start: 1,
		LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable}
	standalone := catalog.Counter{Name: "invoice_number", Prefix: "INV", Start: 1000,
		LockTimeout: catalog.DefaultCounterLockTimeout, IdempotencyWindow: catalog.Duration(60e9)}
	tests := []struct {
		name string
		base catalog.Counter
		edit func(c *catalog.Counter)
		want []string
	}{
		{"attached", attached, func(*catalog.Counter) {}, nil},
		{"standalone", standalone, func(*catalog.Counter) {}, nil},
		{"bare table", attached, func(c *catalog.Counter) { c.Table = "tasks" }, []string{"table"}},
		{"table without column", attached, func(c *catalog.Counter) { c.Column = "" }, []string{"column"}},
		{"scope twice", attached, func(c *catalog.Counter) { c.Scope = []string{"a", "a"}; c.PrefixFrom = nil }, []string{"scope[1]"}},
		{"numbered column in scope", attached, func(c *catalog.Counter) { c.Scope = []string{"index"} }, []string{"scope[0]"}},
		{"strategy", attached, func(c *catalog.Counter) { c.Strategy = "magic" }, []string{"strategy"}},
		{"prefix_from needs one scope", attached, func(c *catalog.Counter) { c.Scope = nil }, []string{"prefix_from"}},
		{"start 0", attached, func(c *catalog.Counter) { c.Start = 0 }, []string{"start"}},
		{"lock_timeout too long", attached, func(c *catalog.Counter) { c.LockTimeout = catalog.Duration(2 * 3600e9) }, []string{"lock_timeout"}},
		{"window on attached", attached, func(c *catalog.Counter) { c.IdempotencyWindow = catalog.Duration(60e9) }, []string{"idempotency_window"}},
		{"window too short", standalone, func(c *catalog.Counter) { c.IdempotencyWindow = catalog.Duration(1e6) }, []string{"idempotency_window"}},
		{"lower-case prefix", standalone, func(c *catalog.Counter) { c.Prefix = "inv" }, []string{"prefix"}},
		{"scope on standalone", standalone, func(c *catalog.Counter) { c.Scope = []string{"a"} }, []string{"scope"}},
		{"strategy on standalone", standalone, func(c *catalog.Counter) { c.Strategy = catalog.StrategyCounterTable }, []string{"strategy"}},
		{"name", standalone, func(c *catalog.Counter) { c.Name = "Invoice" }, []string{"name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.base
			tt.edit(&c)
			require.Equal(t, tt.want, attrs(t, c.Validate()))
		})
	}
}

// What the configuration language accepts, the catalog's rules accept: a
// plan made from any example configuration passes plan validation.
func TestEveryExampleConfigurationIsValid(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../examples/*.hcl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	valid, err := filepath.Glob("../spec/testdata/valid/*.hcl")
	require.NoError(t, err)
	files = append(append(files, valid...), "../spec/testdata/valid/multi")
	for _, file := range files {
		cfg, diags := spec.Load(file)
		require.False(t, diags.HasErrors(), "%s: %s", file, diags.Error())
		s := cfg.State()
		for _, q := range s.Queues {
			require.NoError(t, q.Validate(), "%s: queue %s", file, q.Name)
		}
		for _, tt := range s.TaskTypes {
			require.NoError(t, tt.Validate(), "%s: task %s", file, tt.Name)
		}
		for _, c := range s.Counters {
			require.NoError(t, c.Validate(), "%s: counter %s", file, c.Name)
		}
	}
}
