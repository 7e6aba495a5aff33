package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

const statusConfig = `
queue "default" {}
queue "media" {}
task "email" {}
task "render" {
  queue       = "media"
  concurrency = 2
}
`

// newStatusCLI applies statusConfig and puts some life in the schema: 3
// email tasks due, 5 render tasks (2 holding units, claimed by a worker
// that leads, 3 waiting).
func newStatusCLI(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, statusConfig))
	require.Equal(t, 0, r.code, r.stderr)
	for _, sql := range []string{
		`SELECT {{schema}}.enqueue('email') FROM generate_series(1, 3)`,
		`SELECT {{schema}}.enqueue('render') FROM generate_series(1, 5)`,
		// enqueue gives a task a unit only if no apply holds its type's
		// lock right now, and the lock is per type name across schemas (a
		// parallel test may be applying a "render"): admit the waiting ones
		// under the lock, waiting for it.
		`BEGIN; SELECT {{schema}}.lock_types('{render}'); SELECT {{schema}}.admit_types('{render}'); COMMIT`,
		`SELECT {{schema}}.register_worker('w1', 'host-1', 4)`,
		`SELECT {{schema}}.elect_leader('w1')`,
		`SELECT count(*) FROM {{schema}}.claim('media', 'w1', 4)`,
	} {
		c.Exec(sql)
	}
	return c
}

func TestStatus(t *testing.T) {
	t.Parallel()
	c := newStatusCLI(t)

	r := c.run("status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr)
	for _, want := range []string{
		"QUEUES", "LIMITS", "WORKERS  1 alive, 0 late, 0 dead", "LEADER  w1, lease live",
		"render: the limit binds: all 2 units in use; 3 due tasks wait for one",
	} {
		require.Contains(t, r.stdout, want)
	}
	require.Regexp(t, `(?m)^  default\s+3\s+3\s+0\s+0\s+0\s+0\s+0\s+\d+s$`, r.stdout)
	require.Regexp(t, `(?m)^  media\s+3\s+0\s+3\s+0\s+2\s+0\s+0\s+\d+s$`, r.stdout)
	require.Regexp(t, `(?m)^  render\s+media\s+2\s+2\s+2/2\s+2\s+3\s+binding$`, r.stdout)
	require.Regexp(t, `(?m)^  w1\s+host-1\s+4\s+2\s+\d+s ago\s+alive, leader$`, r.stdout)
	require.NotContains(t, r.stdout, "\x1b[", "no colour without a terminal")

	r = c.run("status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		FormatVersion string `json:"format_version"`
		Schema        string
		Queues        []struct {
			Name    string
			Waiting struct {
				Value int64
				Exact bool
			}
		}
		Limits []struct {
			TaskType string `json:"task_type"`
			Binding  bool
		}
		Leader struct {
			WorkerID string `json:"worker_id"`
			Live     bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Equal(t, "1.1", doc.FormatVersion)
	require.Equal(t, c.Schema, doc.Schema)
	require.Len(t, doc.Queues, 2)
	require.Equal(t, "media", doc.Queues[1].Name)
	require.EqualValues(t, 3, doc.Queues[1].Waiting.Value)
	require.True(t, doc.Queues[1].Waiting.Exact)
	require.Len(t, doc.Limits, 1)
	require.True(t, doc.Limits[0].Binding)
	require.Equal(t, "w1", doc.Leader.WorkerID)
	require.True(t, doc.Leader.Live)

	// --queue: one queue and its task types.
	r = c.run("status", "--queue", "default")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `queue "default"`)
	require.NotRegexp(t, `(?m)^  media`, r.stdout)
	require.Contains(t, r.stdout, "No task type has a concurrency limit.")

	r = c.run("status", "--queue", "nope")
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, `unknown queue "nope"`)
	require.Contains(t, r.stderr, "declared: default, media")
}

func TestStatusErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)

	// A schema pgseq never created: a clear error, and nothing created.
	r := c.run("status")
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "has no pgseq objects yet")
	require.Contains(t, r.stderr, "pgseq apply")
	require.Empty(t, r.stdout)
	require.False(t, c.schemaExists())

	for _, args := range [][]string{
		{"status", "--interval", "1s"},
		{"status", "--watch", "--interval", "0s"},
		{"status", "--watch", "--interval", "soon"},
		{"status", "extra"},
	} {
		r := c.run(args...)
		require.Equal(t, exitError, r.code, "%v", args)
		require.NotEmpty(t, r.stderr, "%v", args)
	}
	require.Contains(t, c.run("status", "--interval", "1s").stderr, "--interval needs --watch")

	var out, errb bytes.Buffer
	code := run(context.Background(), []string{
		"--database-url", "postgres://alice:s3cret-pw@127.0.0.1:1/db?connect_timeout=2", "status",
	}, strings.NewReader(""), &out, &errb)
	require.Equal(t, exitError, code)
	require.Contains(t, errb.String(), "127.0.0.1")
	require.NotContains(t, errb.String(), "s3cret-pw")
}

func TestStatusHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("status", "--help")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"Examples:", "pgseq status --queue media --watch", "pgseq dev status", "10,000+", "--json", "JSON Lines"} {
		require.Contains(t, r.stdout, want)
	}
	r = c.run("dev", "status", "--help")
	require.Contains(t, r.stdout, "pgseq status")
}

// runFor runs pgseq for d, then interrupts it as Ctrl-C would.
func (c *cli) runFor(d time.Duration, args ...string) result {
	c.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errb bytes.Buffer
	all := append([]string{"--database-url", c.url, "--schema", c.Schema}, args...)
	code := run(ctx, all, strings.NewReader(""), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// start runs pgseq in the background until stop interrupts it as Ctrl-C
// would; its output can be read meanwhile. stop returns the result; it runs
// at the end of the test unless called before.
func (c *cli) start(args ...string) (stdout, stderr *pgseqtest.Buffer, stop func() result) {
	c.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = &pgseqtest.Buffer{}, &pgseqtest.Buffer{}
	all := append([]string{"--database-url", c.url, "--schema", c.Schema}, args...)
	code := make(chan int, 1)
	go func() { code <- run(ctx, all, strings.NewReader(""), stdout, stderr) }()
	var once sync.Once
	var r result
	stop = func() result {
		once.Do(func() {
			cancel()
			r = result{code: <-code, stdout: stdout.String(), stderr: stderr.String()}
		})
		return r
	}
	c.T.Cleanup(func() { stop() })
	return stdout, stderr, stop
}

// Without a terminal, --watch prints a snapshot every interval, separated
// by a blank line; Ctrl-C ends it normally.
func TestStatusWatchWithoutTerminal(t *testing.T) {
	t.Parallel()
	c := newStatusCLI(t)
	r := c.runFor(1500*time.Millisecond, "status", "--watch", "--interval", "100ms")
	require.Equal(t, 0, r.code, r.stderr)
	frames := strings.Split(r.stdout, "\n\nSchema ")
	require.GreaterOrEqual(t, len(frames), 2, r.stdout)
	require.LessOrEqual(t, len(frames), 16, "one snapshot per interval at most")
	require.True(t, strings.HasPrefix(r.stdout, "Schema "), r.stdout)
	require.NotContains(t, r.stdout, "\x1b[")

	// --json: one document per line.
	r = c.runFor(1500*time.Millisecond, "status", "--watch", "--json", "--interval", "100ms")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2, r.stdout)
	for _, l := range lines {
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &doc), l)
		require.Equal(t, "1.1", doc["format_version"])
	}
}

// On a terminal --watch redraws the screen, in colour unless NO_COLOR.
// Not parallel: it replaces the terminal check and sets NO_COLOR.
func TestStatusWatchOnTerminal(t *testing.T) {
	c := newStatusCLI(t)
	saved := statusTerminal
	statusTerminal = func(io.Writer) bool { return true }
	defer func() { statusTerminal = saved }()

	t.Setenv("NO_COLOR", "")
	r := c.runFor(1500*time.Millisecond, "status", "--watch", "--interval", "100ms")
	require.Equal(t, 0, r.code, r.stderr)
	frames := strings.Split(r.stdout, clearScreen)
	require.Empty(t, frames[0], "each frame starts by clearing the screen")
	require.GreaterOrEqual(t, len(frames)-1, 2, "%q %q", r.stdout, r.stderr)
	for _, f := range frames[1:] {
		require.True(t, strings.HasPrefix(f, "Every 100ms: pgseq status (Ctrl-C to stop)\n\nSchema "), f)
	}
	require.Contains(t, r.stdout, "\x1b[1mQUEUES\x1b[0m")
	require.Contains(t, r.stdout, "\x1b[31mbinding\x1b[0m")

	t.Setenv("NO_COLOR", "1")
	r = c.run("status")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "\x1b[")
	require.Contains(t, r.stdout, "binding")
}

// A failure after the first snapshot (here the schema dropped) is reported
// on stderr and retried at the next refresh; the watch goes on.
func TestStatusWatchKeepsGoingAfterAFailure(t *testing.T) {
	t.Parallel()
	c := newStatusCLI(t)
	stdout, stderr, stop := c.start("status", "--watch", "--interval", "100ms")
	// Drop the schema once the first snapshot is printed (it is read before
	// it is printed), so the failures come at later refreshes; then wait
	// for two of them: the watch reports a failure and goes on.
	require.Eventually(t, func() bool { return strings.HasPrefix(stdout.String(), "Schema ") }, 30*time.Second, 10*time.Millisecond,
		"the first snapshot is printed: stdout %q, stderr %q", stdout, stderr)
	_, err := pgtest.Pool(t).Exec(context.Background(), `DROP SCHEMA "`+c.Schema+`" CASCADE`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Count(stderr.String(), "(trying again in 100ms)") >= 2 }, 30*time.Second, 10*time.Millisecond,
		"the failure is reported at every refresh: stderr %q", stderr)
	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "Schema "), r.stdout)
	require.Contains(t, r.stderr, "has no pgseq objects yet")
	require.Contains(t, r.stderr, "(trying again in 100ms)")
}
