package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
)

// closedPortURL is a connection string to a port on 127.0.0.1 where
// nothing listens: any attempt to connect fails.
func closedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "postgres://nobody@" + addr + "/nodb?connect_timeout=2"
}

// runOffline runs pgseq in-process with args, as the cli helper does, without
// the test database.
func runOffline(args ...string) result {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// The saved plans in testdata/show were written by pgseq plan --out
// against a database where, since the last apply, slot group 2 of
// "render" was set to capacity 5 and group 7 deleted by hand (drift.plan),
// and against one matching its configuration (empty.plan), by a pgseq
// that did not record the database a plan was made against;
// identity.plan is empty.plan with that record. show prints them as the
// golden files have it, with no database, and --json prints each file's
// own document.
func TestShowSavedPlanGolden(t *testing.T) {
	t.Parallel()
	url := closedPortURL(t)
	files, err := filepath.Glob("testdata/show/*.plan")
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, file := range files {
		r := runOffline("--database-url", url, "show", file)
		require.Equal(t, 0, r.code, r.stderr)
		require.Empty(t, r.stderr)
		golden.Check(t, strings.TrimSuffix(file, ".plan")+".txt", r.stdout)

		r = runOffline("--database-url", url, "show", "--json", file)
		require.Equal(t, 0, r.code, r.stderr)
		doc, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, string(doc), r.stdout, "show --json prints the document plan --json printed")
	}
}

// show never connects: run against a listener that counts connections, it
// gets none, while plan (the control) does get one.
func TestShowNeverConnects(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	url := "postgres://nobody@" + l.Addr().String() + "/nodb?connect_timeout=2"
	for _, args := range [][]string{
		{"show", "testdata/show/drift.plan"},
		{"show", "--json", "testdata/show/drift.plan"},
		{"--schema", "other", "show", "testdata/show/empty.plan"},
	} {
		r := runOffline(append([]string{"--database-url", url}, args...)...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
	}
	require.Zero(t, accepted.Load(), "show connected to the database")

	r := runOffline("--database-url", url, "plan", writeConfig(t, limit10))
	require.Equal(t, exitError, r.code)
	require.NotZero(t, accepted.Load(), "the control: plan connects")
}

// show of a saved plan is what plan printed (the same rendering, drift
// included) under a header, with the hint to apply it; show --json is the
// file, which is what plan --json prints from the same state.
func TestShowEqualsWhatPlanPrinted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, "queue \"default\" {}\nqueue \"old\" {}\ntask \"render\" { concurrency = 10 }\n"))
	require.Equal(t, 0, r.code, r.stderr)
	for _, sql := range []string{
		`UPDATE {{schema}}.concurrency_slots SET capacity = 5 WHERE task_type = 'render' AND slot_group = 2`,
		`DELETE FROM {{schema}}.concurrency_slots WHERE task_type = 'render' AND slot_group = 7`,
		`INSERT INTO {{schema}}.tasks (queue, type) VALUES ('old', 'x')`,
	} {
		c.Exec(sql)
	}
	cfg := writeConfig(t, "queue \"default\" {}\ntask \"render\" {\n  concurrency = 4\n  priority    = 5\n}\n")
	planFile := filepath.Join(t.TempDir(), "review.plan")
	planned := c.run("plan", "--out", planFile, cfg)
	require.Equal(t, 0, planned.code, planned.stderr)
	require.Contains(t, planned.stdout, "Objects have changed outside of pgseq")
	require.Contains(t, planned.stdout, "DESTRUCTIVE")

	shown := runOffline("--database-url", closedPortURL(t), "show", planFile)
	require.Equal(t, 0, shown.code, shown.stderr)
	header, body, ok := strings.Cut(shown.stdout, "\n\n")
	require.True(t, ok, shown.stdout)
	require.True(t, strings.HasPrefix(header, "Saved plan "+planFile+" (plan format 1.0; no database is read):\n  database           \""), header)
	require.Contains(t, header, "\n  schema             "+c.Schema+"\n")
	rendered, _, ok := strings.Cut(planned.stdout, "\nSaved the plan to "+planFile+". ")
	require.True(t, ok, planned.stdout)
	require.Equal(t, rendered+"\nIt has destructive changes, which need --allow-destroy. To apply exactly this plan: pgseq apply --allow-destroy "+planFile+"\n", body)

	asJSON := runOffline("--database-url", closedPortURL(t), "show", "--json", planFile)
	require.Equal(t, 0, asJSON.code, asJSON.stderr)
	doc, err := os.ReadFile(planFile)
	require.NoError(t, err)
	require.Equal(t, string(doc), asJSON.stdout)
	fresh := c.run("plan", "--json", cfg)
	require.Equal(t, 0, fresh.code, fresh.stderr)
	require.Equal(t, fresh.stdout, asJSON.stdout, "plan --json from the same state")

	// The plan shown applies, and is then stale: show still shows it (a
	// review needs no database), apply refuses it.
	r = c.run("apply", "--allow-destroy", planFile)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 0, runOffline("show", planFile).code)
}

// A damaged, truncated, edited or foreign file is refused with the error
// apply gives for it (exit 1), and a path that is no saved plan at all
// says what show reads.
func TestShowRefusesBadFiles(t *testing.T) {
	t.Parallel()
	url := closedPortURL(t)
	dir := t.TempDir()
	good, err := os.ReadFile("testdata/show/drift.plan")
	require.NoError(t, err)
	edited := bytes.Replace(good, []byte(`"concurrency": 4`), []byte(`"concurrency": 40`), 1)
	require.NotEqual(t, good, edited)

	// Files that start with "{": apply reads them as plans, and show
	// says exactly what apply says.
	plans := map[string]struct {
		body []byte
		want string
	}{
		"truncated.plan": {good[:len(good)/2], "not a pgseq plan: unexpected EOF"},
		"edited.plan":    {edited, "plan file checksum does not match: the content was changed after pgseq plan wrote it"},
		"trailing.plan":  {append(append([]byte{}, good...), "{}"...), "unexpected data after the plan document"},
		"foreign.json":   {[]byte(`{"name": "package.json", "version": "1.0.0"}`), "not a pgseq plan"},
		"wrong-version.json": {[]byte(`{"format_version":"9.0","schema":"x","state_fingerprint":"y","summary":{"add":0,"change":0,"destroy":0},"changes":[]}`),
			`format_version "9.0" is not supported`},
		"no-checksum.json": {[]byte(`{"format_version":"1.0","schema":"x","state_fingerprint":"y","summary":{"add":0,"change":0,"destroy":0},"changes":[]}`),
			"the plan has no checksum"},
	}
	for name, tc := range plans {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, tc.body, 0o644))
		for _, args := range [][]string{{"show", path}, {"show", "--json", path}} {
			r := runOffline(append([]string{"--database-url", url}, args...)...)
			require.Equal(t, exitError, r.code, "%s: %v", name, args)
			require.Empty(t, r.stdout, name)
			require.Contains(t, r.stderr, "Error: plan file "+path+": ", name)
			require.Contains(t, r.stderr, tc.want, name)
			applied := runOffline("--database-url", url, "apply", path)
			require.Equal(t, applied.stderr, r.stderr, "%s: show and apply refuse alike", name)
		}
	}

	// Paths apply reads as configuration, or not at all.
	hcl := writeConfig(t, limit10)
	empty := filepath.Join(dir, "empty.plan")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	for path, want := range map[string]string{
		hcl:                          "plan file " + hcl + `: not a pgseq plan: it is not a JSON document (a saved plan starts with "{"). pgseq show reads a plan saved by pgseq plan --out FILE; to see what a configuration would change, run pgseq plan ` + hcl,
		empty:                        "plan file " + empty + ": not a pgseq plan: it is empty.",
		dir:                          "plan file " + dir + ": is a directory",
		filepath.Join(dir, "absent"): "reading plan file: stat " + filepath.Join(dir, "absent") + ": no such file or directory",
	} {
		r := runOffline("--database-url", url, "show", path)
		require.Equal(t, exitError, r.code, path)
		require.Contains(t, r.stderr, want, path)
	}

	r := runOffline("show")
	require.Equal(t, exitError, r.code)
	require.Contains(t, r.stderr, "accepts 1 arg(s), received 0")
}
