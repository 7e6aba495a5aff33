package spec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgseq/pgseq/catalog"
	"github.com/stretchr/testify/require"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{
			name: "indentation and alignment",
			in:   "queue \"default\" {\nbatch_size=100\n    max_retries   =  3\n backoff {\ninitial=\"1s\"\n factor=2\n}\n}\n",
			want: "queue \"default\" {\n  batch_size  = 100\n  max_retries = 3\n  backoff {\n    initial = \"1s\"\n    factor  = 2\n  }\n}\n",
		},
		{
			name: "comments are kept",
			in:   "# queues\nqueue \"default\" { # the main one\n}\n\ntask \"a\" {\nconcurrency=1 # one at a time\n}\n",
			want: "# queues\nqueue \"default\" { # the main one\n}\n\ntask \"a\" {\n  concurrency = 1 # one at a time\n}\n",
		},
		{
			name: "already canonical",
			in:   "task \"a\" {\n  queue = \"default\"\n}\n",
			want: "task \"a\" {\n  queue = \"default\"\n}\n",
		},
		{
			// Format changes layout only: validation is Parse's job.
			name: "invalid but well-formed configuration",
			in:   "queues \"x\" {\nconcurrency=0\n}\n",
			want: "queues \"x\" {\n  concurrency = 0\n}\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, diags := Format([]byte(tc.in), "in.hcl")
			require.Empty(t, diags)
			require.Equal(t, tc.want, string(out))
			again, diags := Format(out, "in.hcl")
			require.Empty(t, diags)
			require.Equal(t, string(out), string(again))
		})
	}
}

func TestFormatSyntaxError(t *testing.T) {
	t.Parallel()
	out, diags := Format([]byte("queue \"default\" {\n  batch_size = \n}\n"), "bad.hcl")
	require.Nil(t, out)
	require.True(t, diags.HasErrors())
	require.Equal(t, "bad.hcl", diags[0].Subject.Filename)
}

// TestFormatTestdata checks that formatting is idempotent on every file
// under testdata, and that the valid configurations are already canonical.
func TestFormatTestdata(t *testing.T) {
	t.Parallel()
	var paths []string
	require.NoError(t, filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".hcl") {
			paths = append(paths, p)
		}
		return err
	}))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		out, diags := Format(src, p)
		if diags.HasErrors() {
			require.Contains(t, []string{
				"testdata/error-files/syntax-error.hcl",
				"testdata/error-files/missing-newline-after-argument.hcl",
				"testdata/error-files/single-line-block-two-arguments.hcl",
			}, filepath.ToSlash(p), diags.Error())
			continue
		}
		again, _ := Format(out, p)
		require.Equal(t, string(out), string(again), p)
		if strings.HasPrefix(filepath.ToSlash(p), "testdata/valid/") {
			require.Equal(t, string(src), string(out), "%s is not formatted", p)
		}
	}
}

func TestWriteHCL(t *testing.T) {
	t.Parallel()
	s := catalog.State{
		Queues: []catalog.Queue{
			catalog.DefaultQueue("media"),
			catalog.DefaultQueue("default"),
		},
		TaskTypes: []catalog.TaskType{
			{Name: "media:render.4k", Queue: "media", Concurrency: 4, Priority: -10},
			{Name: "email:send", Queue: "default", MaxRetries: intPtr(5)},
		},
		Slots: []catalog.SlotRun{{TaskType: "media:render.4k", First: 1, Last: 1, Capacity: 4, Used: 2}},
	}
	s.Queues[1].Backoff.Factor = 1.1
	want := `queue "default" {
  batch_size  = 100
  max_retries = 3
  backoff {
    initial = "1s"
    max     = "10m"
    factor  = 1.1
    jitter  = 0.2
  }
  worker_timeout = "30s"
  leader_lease   = "15s"
  retention {
    completed   = "7d"
    dead_letter = "30d"
  }
}

queue "media" {
  batch_size  = 100
  max_retries = 3
  backoff {
    initial = "1s"
    max     = "10m"
    factor  = 2
    jitter  = 0.2
  }
  worker_timeout = "30s"
  leader_lease   = "15s"
  retention {
    completed   = "7d"
    dead_letter = "30d"
  }
}

task "email:send" {
  queue       = "default"
  max_retries = 5
  priority    = 0
}

task "media:render.4k" {
  queue       = "media"
  concurrency = 4
  priority    = -10
}
`
	require.Equal(t, want, string(WriteHCL(s)))
	require.Equal(t, "", string(WriteHCL(catalog.State{})))
}

// TestWriteHCLRoundTrip renders many random valid states and checks that
// Parse reads each back unchanged and that the output is canonical.
func TestWriteHCLRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		want := randomState(rng)
		src := WriteHCL(want)
		cfg, diags := Parse(map[string][]byte{"state.hcl": src})
		if len(want.Queues)+len(want.TaskTypes)+len(want.Counters) == 0 {
			require.Equal(t, []string{"Configuration declares nothing"}, diagLines(diags), "state %d", i)
		} else {
			require.Empty(t, diags, "state %d:\n%s\n%s", i, diags.Error(), src)
		}
		require.Equal(t, want, cfg.State(), "state %d:\n%s", i, src)

		formatted, diags := Format(src, "state.hcl")
		require.Empty(t, diags)
		require.Equal(t, string(src), string(formatted), "state %d is not canonical", i)
		require.Equal(t, string(src), string(WriteHCL(cfg.State())), "state %d", i)
	}
}

// randomState returns a valid, sorted desired state whose durations are
// whole milliseconds, with edge values mixed in.
func randomState(rng *rand.Rand) catalog.State {
	s := catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}}
	queues := map[string]bool{}
	for range rng.IntN(4) {
		name := randomName(rng, "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789_-", 62)
		if queues[name] {
			continue
		}
		queues[name] = true
		initial := randomDuration(rng, 0)
		s.Queues = append(s.Queues, catalog.Queue{
			Name:       name,
			BatchSize:  pick(rng, 1+rng.IntN(MaxBatchSize), MinBatchSize, MaxBatchSize),
			MaxRetries: pick(rng, rng.IntN(MaxRetries+1), 0, MaxRetries),
			Backoff: catalog.Backoff{
				Initial: initial,
				Max:     initial + randomDuration(rng, 0),
				Factor:  pickFloat(rng, 1+rng.Float64()*rng.Float64()*100, 1, 2, 1.5),
				Jitter:  pickFloat(rng, rng.Float64(), 0, 1, 0.1),
			},
			WorkerTimeout: randomDuration(rng, MinLease),
			LeaderLease:   randomDuration(rng, MinLease),
			Retention: catalog.Retention{
				Completed:  randomDuration(rng, 0),
				DeadLetter: randomDuration(rng, 0),
			},
		})
	}
	tasks := map[string]bool{}
	for range rng.IntN(6) {
		if len(s.Queues) == 0 {
			break
		}
		name := randomTaskName(rng)
		if tasks[name] {
			continue
		}
		tasks[name] = true
		t := catalog.TaskType{
			Name:     name,
			Queue:    s.Queues[rng.IntN(len(s.Queues))].Name,
			Priority: pick(rng, rng.IntN(2*MaxPriority+1)-MaxPriority, -MaxPriority, MaxPriority),
		}
		if rng.IntN(2) == 0 {
			t.Concurrency = pick(rng, 1+rng.IntN(catalog.MaxConcurrency), 1, catalog.MaxConcurrency)
		}
		if rng.IntN(2) == 0 {
			v := pick(rng, rng.IntN(MaxRetries+1), 0, MaxRetries)
			t.MaxRetries = &v
		}
		s.TaskTypes = append(s.TaskTypes, t)
	}
	s.Counters = randomCounters(rng)
	s.Sort()
	return s
}

// randomCounters returns valid counters of both kinds, nil for none, with
// edge values mixed in.
func randomCounters(rng *rand.Rand) []catalog.Counter {
	const lower = "abcdefghijklmnopqrstuvwxyz"
	const identFirst = lower + "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"
	const identRest = identFirst + "0123456789$"
	ident := func() string { return randomName(rng, identFirst, identRest, 62) }
	var cs []catalog.Counter
	names := map[string]bool{}
	numbered := map[string]bool{}
	for range rng.IntN(5) {
		name := randomName(rng, lower+"_", lower+"_0123456789", 62)
		if names[name] {
			continue
		}
		names[name] = true
		c := catalog.Counter{
			Name:        name,
			Start:       int64(pick(rng, 1+rng.IntN(1_000_000), 1, MaxCounterStart)),
			LockTimeout: catalog.Duration(pick(rng, 1+rng.IntN(int(MaxLockTimeout/MinLockTimeout)), 1, int(MaxLockTimeout/MinLockTimeout))) * MinLockTimeout,
		}
		if rng.IntN(2) == 0 {
			if rng.IntN(3) == 0 {
				c.Prefix = strings.ToUpper(randomName(rng, lower, lower+"0123456789", 15))
			}
			if rng.IntN(2) == 0 {
				c.IdempotencyWindow = randomDuration(rng, MinIdempotencyWindow)
			}
			cs = append(cs, c)
			continue
		}
		c.Table, c.Column = DefaultSchema+"."+ident(), ident()
		if rng.IntN(2) == 0 {
			c.Table = ident() + "." + ident()
		}
		if numbered[c.Table+"."+c.Column] {
			continue
		}
		numbered[c.Table+"."+c.Column] = true
		c.Strategy = []string{catalog.StrategyCounterTable, catalog.StrategyAdvisoryLock}[rng.IntN(2)]
		for range rng.IntN(4) {
			col := ident()
			if col != c.Column && !slices.Contains(c.Scope, col) {
				c.Scope = append(c.Scope, col)
			}
		}
		switch {
		case len(c.Scope) == 1 && rng.IntN(2) == 0:
			c.PrefixFrom = &catalog.PrefixSource{Table: ident() + "." + ident(), Column: ident()}
		case len(c.Scope) == 0 && rng.IntN(2) == 0:
			c.Prefix = strings.ToUpper(randomName(rng, lower, lower+"0123456789", 15))
		}
		cs = append(cs, c)
	}
	return cs
}

// pick returns v most of the time, otherwise one of the edge values.
func pick(rng *rand.Rand, v int, edges ...int) int {
	if rng.IntN(4) == 0 {
		return edges[rng.IntN(len(edges))]
	}
	return v
}

func pickFloat(rng *rand.Rand, v float64, edges ...float64) float64 {
	if rng.IntN(4) == 0 {
		return edges[rng.IntN(len(edges))]
	}
	return v
}

// randomDuration returns a whole-millisecond duration of at least least,
// from a few milliseconds to years.
func randomDuration(rng *rand.Rand, least catalog.Duration) catalog.Duration {
	scale := []time.Duration{time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour}[rng.IntN(5)]
	d := catalog.Duration(time.Duration(rng.IntN(1000)) * scale)
	if rng.IntN(3) == 0 {
		d += catalog.Duration(time.Duration(rng.IntN(100000)) * time.Millisecond)
	}
	return max(d, least)
}

func randomName(rng *rand.Rand, first, rest string, maxRest int) string {
	var b strings.Builder
	b.WriteByte(first[rng.IntN(len(first))])
	n := rng.IntN(12)
	if rng.IntN(8) == 0 {
		n = maxRest
	}
	for range n {
		b.WriteByte(rest[rng.IntN(len(rest))])
	}
	return b.String()
}

func randomTaskName(rng *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	const chars = letters + "0123456789_.-"
	name := randomName(rng, letters, chars, 20)
	for range rng.IntN(3) {
		name += ":" + randomName(rng, chars, chars, 20)
	}
	if len(name) > MaxTaskNameLen {
		name = strings.TrimRight(name[:MaxTaskNameLen], ":")
	}
	return name
}

func TestRandomStatesAreValid(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := randomState(rng)
		for _, q := range s.Queues {
			require.True(t, catalog.ValidQueueName(q.Name), q.Name)
			require.False(t, math.IsNaN(q.Backoff.Factor))
		}
		for _, task := range s.TaskTypes {
			require.True(t, catalog.ValidTaskName(task.Name), fmt.Sprint(task.Name))
		}
		for _, c := range s.Counters {
			require.True(t, catalog.ValidCounterName(c.Name), c.Name)
			require.True(t, catalog.ValidPrefix(c.Prefix) || c.Prefix == "", c.Prefix)
			if c.Attached() {
				_, ok := QualifyTable(c.Table)
				require.True(t, ok, c.Table)
				require.True(t, catalog.ValidIdentifier(c.Column), c.Column)
			}
		}
	}
}
