package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/dbconn/dbconntest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// awkwardPasswords are passwords with every character that needs care in
// a URL, a keyword/value string or a password file. Each is made of the
// runs Kq7v and Wm3z, which appear in no message, so finding one in the
// output means a piece of a password leaked (see leaked).
var awkwardPasswords = []string{
	"Kq7v Wm3z",
	"Kq7v@Wm3z",
	"Kq7v:Wm3z",
	"Kq7v/Wm3z",
	"Kq7v#Wm3z",
	"Kq7v%Wm3z",   // a '%' that is no percent-escape
	"Kq7v%41Wm3z", // one that is
	"Kq7v'Wm3z",
	`Kq7v"Wm3z`,
	`Kq7v\Wm3z`,
	"Kq7v?Wm3z",
	"Kq7v&Wm3z",
	"Kq7v=Wm3z",
	"Kq7vü€Wm3z", // NFC, unchanged by SASLprep
	`Kq7v @:/#%'"\?&=ü Wm3z`,
}

// server is where a connection string points.
type server struct {
	host     string // a name, an IP address or a unix socket directory
	port     int
	user, db string
}

func (s server) socket() bool { return strings.HasPrefix(s.host, "/") }

// url returns a connection URL; password is inserted as it is.
func (s server) url(password string) string {
	userinfo := s.user
	if password != "" {
		userinfo += ":" + password
	}
	if s.socket() {
		return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d", userinfo, s.db, percentEncode(s.host), s.port)
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", userinfo, s.host, s.port, s.db)
}

// keywords returns a keyword/value connection string without a password.
func (s server) keywords() string {
	return fmt.Sprintf("host='%s' port=%d user=%s dbname=%s", backslash(s.host, `'\`), s.port, s.user, s.db)
}

// percentEncode encodes every byte of s but letters, digits and -._~.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// backslash escapes with a backslash every character of s that is in special.
func backslash(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// connForm is one way of giving pgseq a password.
type connForm struct {
	name string
	// exact: the string is well-formed and the server gets the password
	// as it is.
	exact bool
	// settings returns the connection string and environment variables;
	// dir is a directory for files.
	settings func(s server, password, dir string) (connString string, env map[string]string)
}

// connForms are the ways of giving a password: well-formed (exact) and
// malformed ones, which pgseq may refuse but must not print.
var connForms = []connForm{
	{"URL percent-encoded", true, func(s server, pw, _ string) (string, map[string]string) {
		return s.url(percentEncode(pw)), nil
	}},
	{"keyword/value quoted", true, func(s server, pw, _ string) (string, map[string]string) {
		return s.keywords() + " password='" + backslash(pw, `'\`) + "'", nil
	}},
	{"keyword/value unquoted", true, func(s server, pw, _ string) (string, map[string]string) {
		return s.keywords() + " password=" + backslash(pw, ` '\`), nil
	}},
	{"PGPASSWORD", true, func(s server, pw, _ string) (string, map[string]string) {
		return s.url(""), map[string]string{"PGPASSWORD": pw}
	}},
	{"PGPASSFILE", true, func(s server, pw, dir string) (string, map[string]string) {
		host := s.host
		if s.socket() {
			host = "localhost" // what libpq and pgx look up for a unix socket
		}
		file := filepath.Join(dir, "pgpass")
		line := fmt.Sprintf("%s:%d:*:%s:%s\n", host, s.port, s.user, backslash(pw, `:\`))
		if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
			panic(err)
		}
		return s.url(""), map[string]string{"PGPASSFILE": file}
	}},
	{"URL raw", false, func(s server, pw, _ string) (string, map[string]string) {
		return s.url(pw), nil
	}},
	{"keyword/value raw", false, func(s server, pw, _ string) (string, map[string]string) {
		return s.keywords() + " password=" + pw, nil
	}},
	{"keyword/value double quotes", false, func(s server, pw, _ string) (string, map[string]string) {
		return s.keywords() + ` password="` + pw + `"`, nil
	}},
	{"keyword/value without =", false, func(s server, pw, _ string) (string, map[string]string) {
		return s.keywords() + " password " + pw, nil
	}},
	{"no scheme", false, func(s server, pw, _ string) (string, map[string]string) {
		return fmt.Sprintf("%s:%s@%s:%d/%s", s.user, pw, s.host, s.port, s.db), nil
	}},
	{"postgress://", false, func(s server, pw, _ string) (string, map[string]string) {
		return fmt.Sprintf("postgress://%s:%s@%s:%d/%s", s.user, pw, s.host, s.port, s.db), nil
	}},
	{"postgres//", false, func(s server, pw, _ string) (string, map[string]string) {
		return fmt.Sprintf("postgres//%s:%s@%s:%d/%s", s.user, pw, s.host, s.port, s.db), nil
	}},
}

// sources are where a connection string can come from.
var sources = []string{"--database-url", "PGSEQ_DATABASE_URL", "DATABASE_URL"}

// useConnection sets the environment of the test for connString from
// source plus env, with every other connection setting unset (the
// password file: one that does not exist).
func useConnection(t *testing.T, source, connString string, env map[string]string) []string {
	t.Helper()
	for _, name := range []string{
		"PGSEQ_DATABASE_URL", "DATABASE_URL", "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER",
		"PGPASSWORD", "PGSERVICE", "PGSERVICEFILE", "PGSSLMODE", "PGSSLPASSWORD", "PGAPPNAME", "PGCONNECT_TIMEOUT",
		"PGTARGETSESSIONATTRS", "PGCHANNELBINDING", "PGREQUIREAUTH", "PGSSLNEGOTIATION",
	} {
		t.Setenv(name, "")
	}
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "no-pgpass"))
	for k, v := range env {
		t.Setenv(k, v)
	}
	if source == "--database-url" {
		return []string{"--database-url", connString}
	}
	t.Setenv(source, connString)
	return nil
}

// runPgseq runs the CLI in-process and returns its exit code and its
// standard output and error together.
func runPgseq(ctx context.Context, args ...string) (int, string) {
	var out bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &out)
	return code, out.String()
}

// runWorkerUntilRegistered runs pgseq worker with args until a new worker
// row appears in schema (it connected and registered with the password),
// then stops it as Ctrl-C would, and returns what runPgseq returns.
func runWorkerUntilRegistered(t *testing.T, pool *pgxpool.Pool, schema string, args []string) (int, string) {
	t.Helper()
	workers := func() int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM "`+schema+`".workers`).Scan(&n))
		return n
	}
	before := workers()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var code int
	var out string
	done := make(chan struct{})
	go func() { code, out = runPgseq(ctx, args...); close(done) }()
	require.Eventually(t, func() bool {
		select {
		case <-done:
			return true // it ended by itself: the caller reports its output
		default:
			return workers() > before
		}
	}, time.Minute, 10*time.Millisecond, "pgseq worker registered")
	cancel()
	<-done
	return code, out
}

// Every command that connects, given an awkward password in every form
// from every source, fails against a server that is not there or that
// rejects the password, and prints no piece of the password. When the
// connection string is well-formed, the message names user and host and,
// for a wrong password, leads with the server's refusal, not with the
// refused TLS attempt before it (sslmode=prefer).
func TestAwkwardPasswordsAreNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.hcl")
	require.NoError(t, os.WriteFile(config, []byte(limit10), 0o644))
	// A saved plan, for apply PLANFILE, made on the test database.
	schema := pgtest.Schema(t)
	planFile := filepath.Join(dir, "plan.json")
	code, out := runPgseq(context.Background(), "--database-url", pgtest.ConnString(t), "--schema", schema, "plan", "--out", planFile, config)
	require.Equal(t, exitOK, code, out)
	commands := [][]string{
		{"plan", config},
		{"apply", "--auto-approve", config},
		{"apply", planFile},
		{"inspect"},
		{"migrate"},
		{"worker"},
		{"bench", "drain", "--out", ""},
		{"bench", "counters", "--out", ""},
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	rejecting := dbconntest.NewAuthFailServer(t)

	for i, pw := range awkwardPasswords {
		for j, form := range connForms {
			source := sources[(i+j)%len(sources)]
			// Test names, and so temporary directories, must not hold the password.
			t.Run(fmt.Sprintf("password %d/%s/%s", i, form.name, source), func(t *testing.T) {
				for _, tc := range []struct {
					name  string
					srv   server
					cause string // leads the reason, when the string is well-formed
				}{
					{"nothing listening", server{"127.0.0.1", closed, "alice", "db"}, fmt.Sprintf(
						"127.0.0.1:%d (127.0.0.1): dial error: dial tcp 127.0.0.1:%d: connect: connection refused", closed, closed)},
					{"wrong password", server{"127.0.0.1", rejecting.Port(), "alice", "db"}, fmt.Sprintf(
						`127.0.0.1:%d (127.0.0.1): server error: FATAL: password authentication failed for user "alice" (SQLSTATE 28P01)`, rejecting.Port())},
				} {
					connString, env := form.settings(tc.srv, pw, t.TempDir())
					args := useConnection(t, source, connString, env)
					for _, cmd := range commands {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						code, out := runPgseq(ctx, append(append(args, "--schema", schema), cmd...)...)
						cancel()
						what := fmt.Sprintf("password %q, %s, %s: pgseq %s\n%s", pw, tc.name, connString, strings.Join(cmd, " "), out)
						require.Equal(t, exitError, code, what)
						require.Empty(t, dbconntest.Leaked(out, pw), what)
						if form.exact {
							// "Error: connecting to <target with user and
							// host>: <cause>", nothing about TLS before it.
							require.Contains(t, out, "Error: connecting to ", what)
							require.Contains(t, out, "alice", what)
							require.Contains(t, out, ": "+tc.cause+"\n", what)
						}
					}
				}
				if form.exact {
					got := rejecting.Passwords()
					require.NotEmpty(t, got)
					for _, p := range got {
						require.Equal(t, pw, p, "the server got the password as it is")
					}
				} else {
					rejecting.Passwords()
				}
			})
		}
	}
}

// With the right password (the local cluster trusts its socket; a test
// server that checks passwords gets the right one: the test's role has it),
// every command that connects works, prints no piece of the password, and
// stores none: not in the apply history, nor anywhere else in pgseq's
// schema, nor in a saved plan.
func TestAwkwardPasswordsAreNeverStored(t *testing.T) {
	pool := pgtest.Pool(t)
	cfg, err := pgconn.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	srv := server{host: cfg.Host, port: int(cfg.Port), user: createRole(t, pool), db: cfg.Database}
	schema := pgtest.Schema(t) // after createRole: dropped before the role
	var exact []connForm
	for _, f := range connForms {
		if f.exact {
			exact = append(exact, f)
		}
	}

	// One well-formed form per password, in turn; that every form gets
	// every password to the server as it is, TestAwkwardPasswordsAreNeverPrinted
	// checks.
	applies := 0
	plans := t.TempDir() // kept until the end, unlike the subtests' directories
	for i, pw := range awkwardPasswords {
		form := exact[i%len(exact)]
		// Test names, and so temporary directories, must not hold the password.
		t.Run(fmt.Sprintf("password %d/%s", i, form.name), func(t *testing.T) {
			setPassword(t, pool, srv.user, pw)
			dir := t.TempDir()
			connString, env := form.settings(srv, pw, dir)
			args := useConnection(t, sources[i%len(sources)], connString, env)
			args = append(args, "--schema", schema)
			// Concurrencies of their own, so that every apply changes something.
			config, next := filepath.Join(dir, "a.hcl"), filepath.Join(dir, "b.hcl")
			for k, file := range []string{config, next} {
				src := fmt.Sprintf("queue \"default\" {}\ntask \"render\" { concurrency = %d }\n", 100+2*i+k)
				require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
			}
			planFile := filepath.Join(plans, fmt.Sprintf("plan-%d.json", i))
			for _, cmd := range [][]string{
				{"apply", "--auto-approve", config},
				{"plan", config},
				{"migrate"},
				{"plan", "--out", planFile, next},
				{"apply", planFile},
				{"inspect"},
				{"worker"},
			} {
				var code int
				var out string
				if cmd[0] == "worker" {
					code, out = runWorkerUntilRegistered(t, pool, schema, append(args, cmd...))
				} else {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					code, out = runPgseq(ctx, append(args, cmd...)...)
					cancel()
				}
				what := fmt.Sprintf("password %q, %s: pgseq %s\n%s", pw, connString, strings.Join(cmd, " "), out)
				require.Equal(t, exitOK, code, what)
				require.Empty(t, dbconntest.Leaked(out, pw), what)
			}
			applies += 2
		})
	}

	var n int
	var by string
	require.NoError(t, pool.QueryRow(context.Background(),
		fmt.Sprintf(`SELECT count(*), min(applied_by) FROM %q.applies`, schema)).Scan(&n, &by))
	require.Equal(t, applies, n, "one history row per apply")
	require.Equal(t, srv.user, by)
	stored := dumpSchema(t, pool, schema)
	require.Contains(t, stored, srv.user, "the dump has the history rows")
	for i, pw := range awkwardPasswords {
		require.Empty(t, dbconntest.Leaked(stored, pw), "password %q stored:\n%s", pw, stored)
		plan, err := os.ReadFile(filepath.Join(plans, fmt.Sprintf("plan-%d.json", i)))
		require.NoError(t, err)
		require.Empty(t, dbconntest.Leaked(string(plan), pw), "password %q in a saved plan:\n%s", pw, plan)
	}
}

// createRole creates a login role that may create schemas in the test
// database, dropped with what it owns when the test ends.
func createRole(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	ctx := context.Background()
	random := make([]byte, 4)
	_, _ = rand.Read(random)
	role := "t_redact_" + hex.EncodeToString(random)
	var create string
	require.NoError(t, pool.QueryRow(ctx, `SELECT format('CREATE ROLE %I LOGIN; GRANT CREATE ON DATABASE %I TO %I',
		$1::text, current_database(), $1::text)`, role).Scan(&create))
	_, err := pool.Exec(ctx, create)
	require.NoError(t, err, "creating a role (the test database's user needs CREATEROLE)")
	t.Cleanup(func() {
		_, err := pool.Exec(context.Background(), fmt.Sprintf(`DROP OWNED BY %q CASCADE; DROP ROLE %q`, role, role))
		require.NoError(t, err)
	})
	return role
}

// setPassword gives role password.
func setPassword(t *testing.T, pool *pgxpool.Pool, role, password string) {
	t.Helper()
	var alter string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)`,
		role, password).Scan(&alter))
	_, err := pool.Exec(context.Background(), alter)
	require.NoError(t, err)
}

// dumpSchema returns every row of every table of schema as JSON, a line each.
func dumpSchema(t *testing.T, pool *pgxpool.Pool, schema string) string {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT format('SELECT coalesce(string_agg(to_jsonb(t)::text, E''\n''), '''') FROM %I.%I t', table_schema, table_name)
		FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, schema)
	require.NoError(t, err)
	var queries []string
	for rows.Next() {
		var q string
		require.NoError(t, rows.Scan(&q))
		queries = append(queries, q)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, queries)
	var b strings.Builder
	for _, q := range queries {
		var s string
		require.NoError(t, pool.QueryRow(ctx, q).Scan(&s), q)
		b.WriteString(s + "\n")
	}
	return b.String()
}

// The test's own helpers: the percent-encoding and the escapes are those
// libpq reads.
func TestPercentEncodeAndBackslash(t *testing.T) {
	t.Parallel()
	require.Equal(t, "a%20b%40c%C3%BC-._~", percentEncode("a b@cü-._~"))
	require.Equal(t, `a\'b\\c`, backslash(`a'b\c`, `'\`))
}
