package main

import (
	"bufio"
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
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// cli runs pgseq in-process against the test database, in its own schema.
type cli struct {
	*pgseqtest.DB
	url string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	return &cli{DB: pgseqtest.New(t), url: pgtest.ConnString(t)}
}

type result struct {
	code           int
	stdout, stderr string
}

func (c *cli) run(args ...string) result {
	c.T.Helper()
	var out, errb bytes.Buffer
	all := append([]string{"--database-url", c.url, "--schema", c.Schema}, args...)
	code := run(context.Background(), all, strings.NewReader(""), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// schemaExists reports whether the test's schema exists at all.
func (c *cli) schemaExists() bool {
	c.T.Helper()
	var ok bool
	err := c.Pool.QueryRow(context.Background(),
		`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, c.Schema).Scan(&ok)
	require.NoError(c.T, err)
	return ok
}

func examples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../examples/*.hcl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 2)
	return files
}

func TestExamplesApplyAndConverge(t *testing.T) {
	t.Parallel()
	for _, file := range examples(t) {
		file := file
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			setupExample(t, file)
			r := c.run("validate", file)
			require.Equal(t, 0, r.code, r.stderr)

			r = c.run("plan", "--detailed-exitcode", file)
			require.Equal(t, exitChanges, r.code, r.stderr)

			r = c.run("apply", "--auto-approve", file)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, "Apply complete!")

			r = c.run("plan", "--detailed-exitcode", file)
			require.Equal(t, 0, r.code, "plan after apply must be empty:\n%s%s", r.stdout, r.stderr)
			require.Contains(t, r.stdout, "No changes.")

			// inspect prints HCL that applies back as an empty plan.
			r = c.run("inspect")
			require.Equal(t, 0, r.code, r.stderr)
			inspected := filepath.Join(t.TempDir(), "inspected.hcl")
			require.NoError(t, os.WriteFile(inspected, []byte(r.stdout), 0o644))
			r = c.run("plan", "--detailed-exitcode", inspected)
			require.Equal(t, 0, r.code, "inspect output must plan empty:\n%s%s", r.stdout, r.stderr)
		})
	}
}

// setupExample runs the example's companion NAME.setup.sql, which creates
// the application tables its counters number, and drops what it created
// afterwards.
func setupExample(t *testing.T, file string) {
	t.Helper()
	setup := strings.TrimSuffix(file, ".hcl") + ".setup.sql"
	sql, err := os.ReadFile(setup)
	if os.IsNotExist(err) {
		return
	}
	require.NoError(t, err)
	_, err = pgtest.Pool(t).Exec(context.Background(), string(sql))
	require.NoError(t, err, setup)
	t.Cleanup(func() {
		for _, m := range regexp.MustCompile(`CREATE SCHEMA IF NOT EXISTS (\w+)`).FindAllStringSubmatch(string(sql), -1) {
			_, _ = pgtest.Pool(t).Exec(context.Background(), `DROP SCHEMA IF EXISTS "`+m[1]+`" CASCADE`)
		}
	})
}

var wantRE = regexp.MustCompile(`^# want: (\d+):(\d+): (.+)$`)

// Every bad-input file: exit 1, a diagnostic at file:line:col with the
// expected summary, and no database change — the schema is never created.
func TestBadInputTouchesNothing(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../spec/testdata/error-files/*.hcl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 15)
	c := newCLI(t)
	for _, file := range files {
		wants := readWants(t, file)
		require.NotEmpty(t, wants, "%s has no # want: line", file)
		for _, cmd := range [][]string{{"validate"}, {"plan"}, {"apply", "--auto-approve"}} {
			r := c.run(append(cmd, file)...)
			require.Equal(t, exitError, r.code, "%s %s:\n%s", cmd[0], file, r.stderr)
			for _, w := range wants {
				require.Contains(t, r.stderr, file+":"+w.pos+": error: "+w.summary, "%s %s", cmd[0], file)
			}
		}
	}
	require.False(t, c.schemaExists(), "bad input must not touch the database")
}

type want struct{ pos, summary string }

func readWants(t *testing.T, file string) []want {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []want
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := wantRE.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			out = append(out, want{pos: m[1] + ":" + m[2], summary: m[3]})
		}
	}
	return out
}

func writeConfig(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.hcl")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

const limit10 = `
queue "default" {}
task "render" { concurrency = 10 }
`
const limit20 = `
queue "default" {}
task "render" { concurrency = 20 }
`

func TestSavedPlanAppliesExactlyAndStaleIsRefused(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	planFile := filepath.Join(t.TempDir(), "plan.json")

	// A saved plan applies exactly, with no prompt.
	r := c.run("plan", "--out", planFile, writeConfig(t, limit10))
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("apply", planFile)
	require.Equal(t, 0, r.code, r.stderr)

	// A plan saved, then made stale by another apply, is refused.
	r = c.run("plan", "--out", planFile, writeConfig(t, limit20))
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("apply", "--auto-approve", writeConfig(t, `
queue "default" {}
task "render" { concurrency = 30 }
`))
	require.Equal(t, 0, r.code, r.stderr)
	var applies, capacity int
	c.Scalar(&applies, `SELECT count(*) FROM {{schema}}.applies`)

	r = c.run("apply", planFile)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "stale")
	require.Contains(t, r.stderr, "nothing was applied")

	var after int
	c.Scalar(&after, `SELECT count(*) FROM {{schema}}.applies`)
	c.Scalar(&capacity, `SELECT sum(capacity) FROM {{schema}}.concurrency_slots WHERE task_type = 'render'`)
	require.Equal(t, applies, after, "no history row for a refused plan")
	require.Equal(t, 30, capacity, "database unchanged")
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("plan", "--json", "--detailed-exitcode", writeConfig(t, limit10))
	require.Equal(t, exitChanges, r.code, r.stderr)
	var doc struct {
		FormatVersion string `json:"format_version"`
		Summary       struct{ Add, Change, Destroy int }
		Changes       []struct {
			Address string
			Action  string
			Before  json.RawMessage
			After   map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Equal(t, "1.0", doc.FormatVersion)
	require.Equal(t, 2, doc.Summary.Add)
	require.Len(t, doc.Changes, 2)
	require.Equal(t, `queue "default"`, doc.Changes[0].Address)
	require.Equal(t, "create", doc.Changes[0].Action)
	require.Equal(t, "null", string(doc.Changes[0].Before))
	require.Equal(t, float64(10), doc.Changes[1].After["concurrency"])
}

func TestApplyWithoutTerminalNeedsAutoApprove(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", writeConfig(t, limit10))
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "--auto-approve")
	require.False(t, c.schemaExists())
}

func TestBadPlanFiles(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	// A file is a saved plan when it starts with "{" (savedPlanPath);
	// anything else is configuration, whatever its name.
	cases := map[string]struct{ body, want string }{
		"garbage.plan":       {"this is not json", "error: Invalid block definition"},
		"truncated.json":     {`{"format_version":"1.0","sch`, "not a pgseq plan"},
		"wrong-version.json": {`{"format_version":"9.0","schema":"x","state_fingerprint":"y","summary":{"add":0,"change":0,"destroy":0},"changes":[]}`, "not a pgseq plan"},
		"bad-action.json":    {`{"format_version":"1.0","schema":"x","state_fingerprint":"y","summary":{"add":1,"change":0,"destroy":0},"changes":[{"address":"queue \"a\"","type":"queue","name":"a","action":"explode","before":null,"after":null}]}`, "the plan has no checksum"},
		"unknown-field.json": {`{"format_version":"1.0","schema":"x","state_fingerprint":"y","surprise":1,"summary":{"add":0,"change":0,"destroy":0},"changes":[]}`, "not a pgseq plan"},
	}
	for name, tc := range cases {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o644))
		r := c.run("apply", "--auto-approve", path)
		require.Equal(t, exitError, r.code, name)
		require.Contains(t, r.stderr, tc.want, name)
		require.Contains(t, r.stderr, path, name)
	}
	require.False(t, c.schemaExists())
}

func TestBadFlagsAndArguments(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"plan", "--no-such-flag", "x.hcl"},
		{"plan"},
		{"apply"},
		{"plan", "does-not-exist.hcl"},
		{"frobnicate"},
		{"--schema", "Bad Schema!", "validate", "../../examples"},
		{"apply", "--lock-timeout", "soon", "x.hcl"},
	} {
		r := c.run(args...)
		require.Equal(t, exitError, r.code, "%v", args)
		require.NotEmpty(t, r.stderr, "%v", args)
	}
	require.False(t, c.schemaExists())
}

func TestUnreachableDatabaseIsAClearErrorWithoutPassword(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{
		"--database-url", "postgres://alice:s3cret-pw@127.0.0.1:1/db?connect_timeout=2",
		"plan", writeConfig(t, limit10),
	}, strings.NewReader(""), &out, &errb)
	require.Equal(t, exitError, code)
	require.Contains(t, errb.String(), "127.0.0.1")
	require.NotContains(t, errb.String(), "s3cret-pw")
}

func TestFmtCheck(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ugly := writeConfig(t, "queue \"default\" {\nbatch_size=5\n    max_retries   =  2\n}\n")
	r := c.run("fmt", "--check", ugly)
	require.Equal(t, exitFormat, r.code, r.stderr)
	require.Contains(t, r.stdout, ugly)

	r = c.run("fmt", ugly)
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("fmt", "--check", ugly)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(ugly)
	require.NoError(t, err)
	require.Equal(t, "queue \"default\" {\n  batch_size  = 5\n  max_retries = 2\n}\n", string(b))

	r = c.run("fmt", "--check", "../../examples")
	require.Equal(t, 0, r.code, "examples must be formatted: %s", r.stdout)
}

func TestLockTimeoutNamesHolder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, limit10)).code)

	ctx := context.Background()
	holder, err := pgtest.Pool(t).Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx)
	_, err = holder.Exec(ctx, `SET LOCAL application_name = 'pgseq apply (ci job 42)'`)
	require.NoError(t, err)
	require.NoError(t, applier.Lock(ctx, holder, pgtest.Pool(t), c.Schema, time.Second))

	r := c.run("apply", "--auto-approve", "--lock-timeout", "200ms", writeConfig(t, limit20))
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "pgseq apply (ci job 42)")
	require.Contains(t, r.stderr, "--lock-timeout")

	var capacity int
	c.Scalar(&capacity, `SELECT sum(capacity) FROM {{schema}}.concurrency_slots`)
	require.Equal(t, 10, capacity, "nothing applied")
}

func TestDestroyNeedsPermission(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, 0, c.run("apply", "--auto-approve", writeConfig(t, `
queue "default" {}
queue "old" {}
`)).code)
	c.Exec(`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x')`)

	onlyDefault := writeConfig(t, `queue "default" {}`)
	r := c.run("apply", "--auto-approve", onlyDefault)
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "--allow-destroy")
	require.Contains(t, r.stdout, "DESTRUCTIVE")

	r = c.run("apply", "--auto-approve", "--allow-destroy", onlyDefault)
	require.Equal(t, 0, r.code, r.stderr)
	var queues int
	c.Scalar(&queues, `SELECT count(*) FROM {{schema}}.queues`)
	require.Equal(t, 1, queues)
}

// Counter blocks are checked against the database before anything is
// planned: a missing table or column is a diagnostic at its source.
func TestCounterReferencesAreCheckedAgainstTheDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	app := "app_" + c.Schema[len(c.Schema)-8:]
	_, err := pgtest.Pool(t).Exec(context.Background(), `CREATE SCHEMA "`+app+`";
		CREATE TABLE "`+app+`".projects (id bigint PRIMARY KEY, key text);
		CREATE TABLE "`+app+`".issues (id bigint PRIMARY KEY, project_id bigint, number bigint, title text)`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = pgtest.Pool(t).Exec(context.Background(), `DROP SCHEMA "`+app+`" CASCADE`) })

	cases := []struct{ src, want string }{
		{`counter "n" {
  table  = "` + app + `.nope"
  column = "number"
}`, ":3:12: error: Unknown table"},
		{`counter "n" {
  table  = "` + app + `.issues"
  column = "numbr"
}`, ":4:12: error: Unknown column"},
		{`counter "n" {
  table  = "` + app + `.issues"
  column = "title"
}`, ":4:12: error: Column is not an integer"},
		{`counter "n" {
  table  = "` + app + `.issues"
  column = "number"
  scope  = ["project", "id"]
}`, ":5:13: error: Unknown scope column"},
		{`counter "n" {
  table  = "` + app + `.issues"
  column = "number"
  scope  = ["project_id"]
  prefix_from {
    table  = "` + app + `.projects"
    column = "code"
  }
}`, ":8:14: error: Unknown column"},
	}
	for _, tc := range cases {
		file := writeConfig(t, "queue \"default\" {}\n"+tc.src+"\n")
		for _, cmd := range [][]string{{"plan"}, {"apply", "--auto-approve"}} {
			r := c.run(append(cmd, file)...)
			require.Equal(t, exitError, r.code, "%s\n%s", tc.src, r.stderr)
			require.Contains(t, r.stderr, file+tc.want, tc.src)
		}
	}
	require.False(t, c.schemaExists(), "nothing applied")

	// The same counter, correctly declared, applies and numbers rows.
	ok := writeConfig(t, "queue \"default\" {}\n"+`counter "n" {
  table  = "`+app+`.issues"
  column = "number"
  scope  = ["project_id"]
  prefix_from {
    table  = "`+app+`.projects"
    column = "key"
  }
}
`)
	r := c.run("apply", "--auto-approve", ok)
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("plan", "--detailed-exitcode", ok)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
