package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/localdb"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/plan"
)

// What a new user hit (issue 18, part D).

// appTable creates the schema app_<suffix of the test schema> with a table
// tasks (project_id, index) for a counter to number, dropped when the test
// ends; it returns the schema's name.
func appTable(t *testing.T, c *cli) string {
	t.Helper()
	app := "app_" + c.Schema[len(c.Schema)-8:]
	_, err := pgtest.Pool(t).Exec(context.Background(), `CREATE SCHEMA "`+app+`";
		CREATE TABLE "`+app+`".tasks (id bigint PRIMARY KEY, project_id bigint, index bigint);
		INSERT INTO "`+app+`".tasks VALUES (1, 1, NULL)`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = pgtest.Pool(t).Exec(context.Background(), `DROP SCHEMA "`+app+`" CASCADE`) })
	return app
}

// counterOn is a configuration numbering app.tasks.
func counterOn(app string) string {
	return "queue \"default\" {}\ncounter \"task_index\" {\n  table  = \"" + app + ".tasks\"\n  column = \"index\"\n  scope  = [\"project_id\"]\n}\n"
}

// lockTable holds an ACCESS EXCLUSIVE lock on table from another session,
// named app, until the test ends; it returns that session's pid.
func lockTable(t *testing.T, table, app string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgtest.Pool(t).Acquire(ctx)
	require.NoError(t, err)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = tx.Rollback(context.Background())
		conn.Release()
	})
	_, err = tx.Exec(ctx, `SELECT set_config('application_name', $1, true)`, app)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `LOCK TABLE `+table+` IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	var pid int
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	return pid
}

// plan and apply wait for a lock on a counter's table at most
// --lock-timeout, then fail naming the session holding it.
func TestPlanLockTimeoutNamesTheHolder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	app := appTable(t, c)
	file := writeConfig(t, counterOn(app))
	pid := lockTable(t, pgx.Identifier{app, "tasks"}.Sanitize(), "reindex job")
	for _, args := range [][]string{
		{"plan", "--lock-timeout", "500ms", file},
		{"apply", "--auto-approve", "--lock-timeout", "500ms", file},
	} {
		start := time.Now()
		r := c.run(args...)
		require.Equal(t, exitError, r.code, "%v: %s", args, r.stderr)
		require.Less(t, time.Since(start), 15*time.Second, "%v gave up after the lock timeout", args)
		for _, want := range []string{
			"gave up after 500ms (--lock-timeout) waiting for a lock on table " + app + ".tasks",
			"pid " + strconv.Itoa(pid), `application "reindex job"`, "holding AccessExclusiveLock", "in its transaction for",
		} {
			require.Contains(t, r.stderr, want, "%v", args)
		}
	}
	// plan's default is apply's.
	r := runOffline("plan", "--help")
	require.Contains(t, r.stdout, "--lock-timeout duration")
	require.Contains(t, r.stdout, "(default 5s)")
}

// plan interrupted (Ctrl-C, SIGTERM) says plan was interrupted, not that
// nothing was applied: plan applies nothing anyway.
func TestInterruptedPlanSaysSo(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	app := appTable(t, c)
	file := writeConfig(t, counterOn(app))
	lockTable(t, pgx.Identifier{app, "tasks"}.Sanitize(), "reindex job")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--database-url", c.url, "--schema", c.Schema, "plan", "--lock-timeout", "30s", file},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, exitError, code, errb.String())
	require.Contains(t, errb.String(), "Error: plan interrupted")
	require.NotContains(t, errb.String(), "applied")
}

// A saved plan records the database it was made against; show prints it,
// and apply refuses the plan in another database, saying so rather than
// calling it stale.
func TestSavedPlanNamesItsDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := writeConfig(t, limit10)
	out := filepath.Join(t.TempDir(), "release.plan")
	r := c.run("plan", "--out", out, file)
	require.Equal(t, exitOK, r.code, r.stderr)
	saved, err := readPlanFile(out)
	require.NoError(t, err)
	require.NotNil(t, saved.Database)
	here := saved.Database

	r = c.run("show", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "  database           \""+here.Name+"\", cluster system identifier "+here.SystemIdentifier+"\n")

	// The same plan, as if made against another database.
	saved.Database = &plan.Database{SystemIdentifier: here.SystemIdentifier, Name: "staging"}
	other := filepath.Join(t.TempDir(), "staging.plan")
	require.NoError(t, writePlanFile(other, saved))
	r = c.run("apply", other)
	require.Equal(t, exitError, r.code, r.stdout)
	require.Contains(t, r.stderr, `saved plan was made against another database: the plan was made against database "staging" of cluster `+here.SystemIdentifier)
	require.Contains(t, r.stderr, `but this is database "`+here.Name+`"`)
	require.NotContains(t, r.stderr, "stale")
	require.False(t, c.schemaExists(), "nothing applied")

	r = c.run("apply", out)
	require.Equal(t, exitOK, r.code, r.stderr)
}

// The database-side checks report every problem in one run, each at its
// place: a counter on a missing table does not hide an unknown role.
func TestDatabaseProblemsAreReportedTogether(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	missing := "r" + c.Schema[len(c.Schema)-8:] + "_nobody"
	file := writeConfig(t, `queue "default" {}
counter "n" {
  table  = "public.nope_`+c.Schema[len(c.Schema)-8:]+`"
  column = "number"
}
access {
  work = ["`+missing+`"]
}
`)
	for _, cmd := range [][]string{{"plan"}, {"apply", "--auto-approve"}} {
		r := c.run(append(cmd, file)...)
		require.Equal(t, exitError, r.code, r.stderr)
		require.Contains(t, r.stderr, file+":3:12: error: Unknown table", cmd[0])
		require.Contains(t, r.stderr, file+":7:11: error: Unknown role", cmd[0])
	}
	require.False(t, c.schemaExists(), "nothing applied")
}

// worker --queue checks the queue before it says anything about it.
func TestWorkerUnknownQueue(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	require.Equal(t, exitOK, c.run("apply", "--auto-approve", writeConfig(t, limit10)).code)
	r := c.run("worker", "--queue", "nosuch")
	require.Equal(t, exitError, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, `unknown queue "nosuch": schema "`+c.Schema+`" does not declare it (it declares default;`)

	c2 := newCLI(t) // nothing applied yet
	r = c2.run("worker")
	require.Equal(t, exitError, r.code, r.stderr)
	require.Contains(t, r.stderr, `unknown queue "default"`)
	require.Contains(t, r.stderr, "it declares no queue")
}

// The worker's rate is tasks completed per second of the time since its
// last line, in-flight time included and idle time not.
func TestWorkerRate(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	type tick struct {
		at                     int
		done, failed, inFlight int64
		rate                   float64 // -1: no line
	}
	for _, tc := range []struct {
		name  string
		ticks []tick
	}{
		{"4 handlers sleeping 4s complete 1 task/s", []tick{
			{1, 0, 0, 4, -1}, {2, 0, 0, 4, -1}, {3, 0, 0, 4, -1}, {4, 4, 0, 4, 1},
			{5, 4, 0, 4, -1}, {6, 4, 0, 4, -1}, {7, 4, 0, 4, -1}, {8, 8, 0, 4, 1},
		}},
		{"a burst after idle seconds is not diluted", []tick{
			{1, 0, 0, 0, -1}, {2, 0, 0, 0, -1}, {3, 0, 0, 0, -1}, {4, 500, 0, 0, 500},
		}},
		{"fast handlers", []tick{{1, 1000, 0, 10, 1000}, {2, 3000, 0, 10, 2000}}},
		{"failures alone print a line", []tick{{1, 0, 2, 0, 0}}},
	} {
		r := newRateWindow(start)
		for _, tk := range tc.ticks {
			got, ok := r.tick(at(tk.at), tk.done, tk.failed, tk.inFlight)
			if tk.rate < 0 {
				require.False(t, ok, "%s: second %d", tc.name, tk.at)
				continue
			}
			require.True(t, ok, "%s: second %d", tc.name, tk.at)
			require.InDelta(t, tk.rate, got, 1e-9, "%s: second %d", tc.name, tk.at)
		}
	}
}

// A misspelt flag gets the closest flag name.
func TestFlagSuggestions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--auto-aprove", "x.hcl"}, "unknown flag --auto-aprove: did you mean --auto-approve? (see pgseq apply --help)"},
		{[]string{"apply", "-auto-aprove", "x.hcl"}, "unknown flag -auto-aprove: did you mean --auto-approve?"},
		{[]string{"plan", "--detailed-exitcod", "x.hcl"}, "unknown flag --detailed-exitcod: did you mean --detailed-exitcode?"},
		{[]string{"plan", "--lock-timout=1s", "x.hcl"}, "unknown flag --lock-timout=1s: did you mean --lock-timeout=1s?"},
		{[]string{"plan", "--detailed", "x.hcl"}, "did you mean --detailed-exitcode?"},
		{[]string{"plan", "--databse-url", "u", "x.hcl"}, "did you mean --database-url?"},
		{[]string{"worker", "--queu", "q"}, "did you mean --queue?"},
		{[]string{"plan", "--zzz", "x.hcl"}, "unknown flag: --zzz (see pgseq plan --help)"},
	} {
		r := runOffline(tc.args...)
		require.Equal(t, exitError, r.code, "%v", tc.args)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}

// A connection that fails says where its setting came from. Not parallel:
// it sets the environment.
func TestConnectionErrorsNameTheirSource(t *testing.T) {
	url := closedPortURL(t)
	file := writeConfig(t, limit10)
	for _, tc := range []struct {
		env  map[string]string
		flag string
		want string
	}{
		{flag: url, want: "(from --database-url)"},
		{env: map[string]string{"PGSEQ_DATABASE_URL": url}, want: "(from PGSEQ_DATABASE_URL)"},
		{env: map[string]string{"DATABASE_URL": url}, want: "(from DATABASE_URL)"},
		{env: map[string]string{"DATABASE_URL": "postgres://u:secret@h:1/db?sslmode=bogus"}, want: "in DATABASE_URL"},
	} {
		for _, name := range []string{"PGSEQ_DATABASE_URL", "DATABASE_URL", "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"} {
			t.Setenv(name, tc.env[name])
		}
		args := []string{"plan", file}
		if tc.flag != "" {
			args = append([]string{"--database-url", tc.flag}, args...)
		}
		r := runOffline(args...)
		require.Equal(t, exitError, r.code, r.stderr)
		require.Contains(t, r.stderr, tc.want)
		require.NotContains(t, r.stderr, "secret")
	}
}

// The built-in database is the project's, wherever pgseq runs in it: the
// nearest .pgseq above the working directory (or the configuration's
// directory), not past the repository root; else a new one at the
// repository root, or in the working directory outside a repository. Not
// parallel: it changes the working directory.
func TestLocalDatabaseIsTheProjects(t *testing.T) {
	tmp := t.TempDir()
	mkdir := func(parts ...string) string {
		dir := filepath.Join(append([]string{tmp}, parts...)...)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	mkdir("project", ".git")
	mkdir("project", ".pgseq")
	mkdir("project", "config", "prod")
	mkdir("outer", ".pgseq")
	mkdir("outer", "repo", ".git")
	mkdir("outer", "repo", "sub")
	mkdir("loose", ".pgseq")
	mkdir("loose", "a", "b")
	mkdir("elsewhere")
	config := filepath.Join(tmp, "project", "config", "prod", "app.hcl")
	require.NoError(t, os.WriteFile(config, []byte(limit10), 0o644))

	for _, tc := range []struct {
		name, cwd string
		args      []string
		want      string
	}{
		{"from a subdirectory of the project", "project/config/prod", nil, "project/.pgseq"},
		{"at the project root", "project", nil, "project/.pgseq"},
		{"not past the repository root", "outer/repo/sub", nil, "outer/repo/.pgseq"},
		{"outside a repository, up to the root", "loose/a/b", nil, "loose/.pgseq"},
		{"none: in the working directory", "elsewhere", nil, "elsewhere/.pgseq"},
		{"--local-dir overrides", "project/config", []string{"--local-dir", "mine"}, "project/config/mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(filepath.Join(tmp, tc.cwd))
			r := runOffline(append(tc.args, "dev", "status")...)
			require.Equal(t, exitNotRunning, r.code, r.stderr)
			require.Contains(t, r.stdout, "dir:      "+filepath.Join(tmp, tc.want)+"\n")
		})
	}
	require.NoDirExists(t, filepath.Join(tmp, "project", "config", "prod", ".pgseq"), "no second cluster")

	// From outside the project, the configuration's directory finds it.
	t.Chdir(filepath.Join(tmp, "elsewhere"))
	a := &app{}
	loc, err := a.localLocation([]string{config})
	require.NoError(t, err)
	require.Equal(t, localdb.Location{Dir: filepath.Join(tmp, "project", ".pgseq"), Exists: true}, loc)
}

// Creating the built-in database says where, with its absolute path. Not
// parallel: it changes the working directory.
func TestLocalDatabaseCreationSaysWhere(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	sub := filepath.Join(repo, "deploy")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	dir := filepath.Join(repo, ".pgseq")
	t.Cleanup(func() { stopLocal(t, dir) })

	r := runOffline("dev", "start")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "pgseq: creating the built-in local database in "+dir+"\n")
	require.DirExists(t, dir)
	require.NoDirExists(t, filepath.Join(sub, ".pgseq"))

	r = runOffline("dev", "start")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stderr, "creating")
}

// stopLocal stops the built-in database in dir and removes what it left
// outside dir (see localdb's layout).
func stopLocal(t *testing.T, dir string) {
	t.Helper()
	db, err := localdb.New(dir)
	require.NoError(t, err)
	st, err := db.Status()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, db.Stop(ctx))
	for _, p := range []string{st.DataDir, st.SocketDir} {
		if aux := filepath.Dir(p); strings.HasPrefix(aux, "/tmp/pgseq-") {
			require.NoError(t, os.RemoveAll(aux))
		}
	}
}
