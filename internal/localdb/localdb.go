package localdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// DefaultDir is the directory of the built-in local database, relative to
	// the working directory.
	DefaultDir = ".pgseq"

	// User is the superuser of the local cluster. Authentication is trust,
	// so the socket directory and socket are private (0700) to the user
	// the server runs as; root can connect too.
	User = "pgseq"

	// Database is the database Start creates and URL names.
	Database = "pgseq"

	// port is the server port. With no TCP listener it only names the socket
	// file (.s.PGSQL.5432); it is set explicitly in the server configuration
	// and in URLs so that a PGPORT in the environment changes neither.
	port = 5432

	// maxSocketDirLen keeps <socket dir>/.s.PGSQL.5432.lock within the
	// 107 bytes a unix socket path may have, with room to spare.
	maxSocketDirLen = 80

	// includeLine is appended to postgresql.conf once initdb has succeeded;
	// its presence marks a complete data directory.
	includeLine = "include 'pgseq.conf'"

	// startTimeout bounds pg_ctl start and stop (seconds).
	startTimeout = "60"
)

// DB is the built-in local database under one directory. Create it with New.
// Its methods may be called from several goroutines and processes at once.
type DB struct {
	dir       string   // absolute directory given to New; holds the lock file
	acct      *account // user the server runs as; nil: the current user
	root      string   // holds data/ and postgres.log: dir, or aux when acct cannot reach dir
	aux       string   // /tmp/pgseq-<hash of dir>, for what cannot live in dir
	socketDir string   // root/run, or aux/run when root/run is too long or has odd characters
	opts      Options
}

// Options change how the server of a local database runs. The zero value
// is the built-in local database's.
type Options struct {
	// Wrapper is a program and its arguments that the server runs under:
	// pg_ctl starts "Wrapper... postgres ARGS" (for example valgrind, to
	// count the instructions each server process executes). Server
	// processes forked by the postmaster stay under it.
	Wrapper []string
	// Settings are postgresql.conf lines added after the local database's
	// own ("autovacuum = off").
	Settings []string
}

// Status describes the local database.
type Status struct {
	Running   bool   // a server is running on the data directory
	PID       int    // process id of the server; 0 when not running
	Dir       string // directory given to New, absolute
	DataDir   string // PostgreSQL data directory
	SocketDir string // unix socket directory
	LogFile   string // server log
	Version   string // PostgreSQL major version of the cluster; "" before the first Start
	URL       string // connection string of the pgseq database
}

// New returns the local database under dir (usually DefaultDir). It does not
// touch the file system beyond looking at dir's parent directories.
func New(dir string) (*DB, error) {
	return NewWithOptions(dir, Options{})
}

// NewWithOptions is New with a server run as opts say. A database under a
// directory is always started with the same options by whoever starts it.
func NewWithOptions(dir string, opts Options) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("local database directory %s: %w", dir, err)
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	db := &DB{
		dir:  abs,
		acct: acct,
		root: abs,
		aux:  filepath.Join("/tmp", "pgseq-"+hex.EncodeToString(sum[:6])),
		opts: opts,
	}
	if !acct.canTraverse(abs) {
		db.root = db.aux
	}
	db.socketDir = filepath.Join(db.root, "run")
	if len(db.socketDir) > maxSocketDirLen || !plainPath.MatchString(db.socketDir) {
		db.socketDir = filepath.Join(db.aux, "run")
	}
	return db, nil
}

// plainPath matches paths that need no quoting in postgresql.conf's
// unix_socket_directories list.
var plainPath = regexp.MustCompile(`^[A-Za-z0-9/._+-]+$`)

// Dir returns the absolute directory the database is managed under.
func (db *DB) Dir() string { return db.dir }

// URL returns the connection string of the pgseq database, e.g.
// postgres://pgseq@/pgseq?host=%2Fwork%2F.pgseq%2Frun&port=5432.
func (db *DB) URL() string { return db.URLFor(Database) }

// URLFor returns the connection string of the named database in the cluster.
func (db *DB) URLFor(database string) string {
	q := url.Values{"host": {db.socketDir}, "port": {strconv.Itoa(port)}}
	u := url.URL{Scheme: "postgres", User: url.User(User), Path: "/" + database, RawQuery: q.Encode()}
	return u.String()
}

func (db *DB) dataDir() string { return filepath.Join(db.root, "data") }
func (db *DB) logFile() string { return filepath.Join(db.root, "postgres.log") }

// Start creates the cluster if needed, starts the server if it is not
// running and creates the pgseq database if it is missing. It returns the
// connection string of the pgseq database. Start is idempotent and may be
// called by several processes at once: they take turns through a lock file.
func (db *DB) Start(ctx context.Context) (string, error) {
	if err := db.start(ctx); err != nil {
		return "", fmt.Errorf("starting local database in %s: %w", db.dir, err)
	}
	return db.URL(), nil
}

func (db *DB) start(ctx context.Context) error {
	bins, err := FindBinaries()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(db.dir, 0o755); err != nil {
		return err
	}
	unlock, err := db.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	if err := db.prepareDirs(); err != nil {
		return err
	}
	if err := db.initdb(ctx, bins); err != nil {
		return err
	}
	if err := db.writeConfig(); err != nil {
		return err
	}
	if db.runningPID() == 0 {
		if err := db.clearStaleLocks(ctx); err != nil {
			return err
		}
		if err := db.pgCtlStart(ctx, bins); err != nil {
			return err
		}
	}
	_, err = db.CreateDatabase(ctx, Database)
	return err
}

// Stop stops the server (pg_ctl stop -m fast: running transactions are
// rolled back). Stopping a database that is not running, or was never
// created, is not an error.
func (db *DB) Stop(ctx context.Context) error {
	if err := db.stop(ctx); err != nil {
		return fmt.Errorf("stopping local database in %s: %w", db.dir, err)
	}
	return nil
}

func (db *DB) stop(ctx context.Context) error {
	if ok, err := db.initialized(); err != nil || !ok {
		return err
	}
	bins, err := FindBinaries()
	if err != nil {
		return err
	}
	unlock, err := db.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if db.runningPID() == 0 {
		return nil
	}
	_, err = db.run(ctx, bins.PgCtl, "stop", "-D", db.dataDir(), "-m", "fast", "-w", "-t", startTimeout)
	return err
}

// Status reports whether the server is running and where its files are.
// It does not connect to the server.
func (db *DB) Status() (Status, error) {
	s := Status{
		Dir:       db.dir,
		DataDir:   db.dataDir(),
		SocketDir: db.socketDir,
		LogFile:   db.logFile(),
		URL:       db.URL(),
	}
	v, err := os.ReadFile(filepath.Join(db.dataDir(), "PG_VERSION"))
	switch {
	case err == nil:
		s.Version = strings.TrimSpace(string(v))
	case errors.Is(err, fs.ErrNotExist):
	default:
		return Status{}, fmt.Errorf("local database in %s: %w", db.dir, err)
	}
	s.PID = db.runningPID()
	s.Running = s.PID != 0
	return s, nil
}

// CreateDatabase creates the named database in the running cluster unless it
// exists and returns its connection string. Several processes may create the
// same database at once: losing that race is not an error.
func (db *DB) CreateDatabase(ctx context.Context, name string) (string, error) {
	conn, err := pgx.Connect(ctx, db.URLFor("postgres"))
	if err != nil {
		return "", fmt.Errorf("connecting to local database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	var exists bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		return "", fmt.Errorf("looking for database %s: %w", name, err)
	}
	if !exists {
		_, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		var pgErr *pgconn.PgError
		// 42P04 duplicate_database; 23505 when a concurrent CREATE DATABASE
		// of the same name commits first and trips pg_database's unique index.
		if err != nil && !(errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505")) {
			return "", fmt.Errorf("creating database %s: %w", name, err)
		}
	}
	return db.URLFor(name), nil
}

// lock takes the lock file <dir>/pgseq.lock (flock, so it is released when
// the process dies) and returns the function that releases it.
func (db *DB) lock(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(db.dir, "pgseq.lock")
	// Read-only is enough for flock and works whoever created the file.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// prepareDirs creates the directories the server needs and hands them to the
// server's user.
func (db *DB) prepareDirs() error {
	if db.root == db.dir {
		if err := db.acct.chown(db.dir); err != nil {
			return err
		}
	}
	if db.root == db.aux || filepath.Dir(db.socketDir) == db.aux {
		if err := db.mkdirPrivate(db.aux); err != nil {
			return err
		}
	}
	if err := os.Mkdir(db.socketDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := os.Chmod(db.socketDir, 0o700); err != nil {
		return err
	}
	if err := db.acct.chown(db.socketDir); err != nil {
		return err
	}
	for _, p := range []string{db.dataDir(), db.logFile()} {
		if _, err := os.Lstat(p); err == nil {
			if err := db.acct.chownTree(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// mkdirPrivate creates dir (mode 0700) for the server's user, or checks that
// an existing dir belongs to that user: in /tmp anyone could have made it.
func (db *DB) mkdirPrivate(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		return db.acct.chown(dir)
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	want := uint32(os.Geteuid())
	if db.acct != nil {
		want = db.acct.uid
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || st.Uid != want || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("refusing to use %s: it is not a directory owned by user id %d and writable only by it; remove it", dir, want)
	}
	return nil
}

// initialized reports whether initdb has completed for the data directory.
func (db *DB) initialized() (bool, error) {
	conf, err := os.ReadFile(filepath.Join(db.dataDir(), "postgresql.conf"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return strings.Contains(string(conf), includeLine), nil
}

// initdb creates the cluster unless it exists, and checks that an existing
// cluster was made by the installed major version.
func (db *DB) initdb(ctx context.Context, bins Binaries) error {
	data := db.dataDir()
	done, err := db.initialized()
	if err != nil {
		return err
	}
	if done {
		return db.checkVersion(ctx, bins)
	}
	// Leftovers of an initdb that was killed half-way.
	if err := os.RemoveAll(data); err != nil {
		return err
	}
	_, err = db.run(ctx, bins.Initdb,
		"--pgdata="+data,
		"--username="+User,
		"--auth=trust",
		"--encoding=UTF8",
		"--no-locale",
		"--no-sync",
	)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# Settings managed by pgseq, rewritten on every start.\n%s\n", includeLine)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkVersion fails with a clear message when the cluster was created by a
// different major version than the installed binaries.
func (db *DB) checkVersion(ctx context.Context, bins Binaries) error {
	v, err := os.ReadFile(filepath.Join(db.dataDir(), "PG_VERSION"))
	if err != nil {
		return err
	}
	cluster := strings.TrimSpace(string(v))
	out, err := db.run(ctx, bins.Postgres, "--version")
	if err != nil {
		return err
	}
	// "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
	_, installed, _ := strings.Cut(out, "(PostgreSQL) ")
	if installed := majorVersion(installed); installed != "" && installed != cluster {
		return fmt.Errorf("the cluster in %s was created by PostgreSQL %s but %s is version %s: "+
			"remove %s to start afresh (it is a throw-away database)", db.dataDir(), cluster, bins.Postgres, installed, db.dataDir())
	}
	return nil
}

// majorVersion returns the major version of a version such as "15.20",
// "16beta1" or "9.6.24" in the form PG_VERSION uses: "15", "16", "9.6".
func majorVersion(v string) string {
	end := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if end >= 0 {
		v = v[:end]
	}
	parts := strings.Split(v, ".")
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

// writeConfig writes the server settings to <data>/pgseq.conf, which
// postgresql.conf includes.
func (db *DB) writeConfig() error {
	conf := fmt.Sprintf(`# Written by pgseq on every start of the local database; edits are lost.
listen_addresses = ''                 # unix socket only: never clash with another server
port = %d
unix_socket_directories = '%s'
unix_socket_permissions = 0700        # trust authentication: only the owner (and root) may connect
max_connections = 300
shared_buffers = 256MB
fsync = on                            # durable commits: benchmarks measure them
synchronous_commit = on
logging_collector = off               # pg_ctl -l writes the log
`, port, db.socketDir)
	for _, line := range db.opts.Settings {
		conf += line + "\n"
	}
	path := filepath.Join(db.dataDir(), "pgseq.conf")
	if old, err := os.ReadFile(path); err == nil && string(old) == conf {
		return nil
	}
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	return db.acct.chown(path)
}

// pgCtlStart starts the server and waits until it accepts connections.
func (db *DB) pgCtlStart(ctx context.Context, bins Binaries) error {
	var logStart int64
	if fi, err := os.Stat(db.logFile()); err == nil {
		logStart = fi.Size()
	}
	args := []string{"start", "-D", db.dataDir(), "-l", db.logFile(), "-w", "-t", startTimeout, "-s"}
	if len(db.opts.Wrapper) > 0 {
		script, err := db.writeWrapper(bins)
		if err != nil {
			return err
		}
		args = append(args, "-p", script)
	}
	_, err := db.run(ctx, bins.PgCtl, args...)
	if err != nil {
		return fmt.Errorf("%w\nserver log %s:\n%s", err, db.logFile(), tail(db.logFile(), logStart, 20))
	}
	return nil
}

// writeWrapper writes <root>/postgres-wrapper, the script pg_ctl starts as
// the server when Options.Wrapper is set: it runs postgres under the
// wrapper with pg_ctl's arguments.
func (db *DB) writeWrapper(bins Binaries) (string, error) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Written by pgseq: the server runs under a wrapper.\nexec")
	for _, arg := range append(slices.Clone(db.opts.Wrapper), bins.Postgres) {
		b.WriteString(" " + shellQuote(arg))
	}
	b.WriteString(" \"$@\"\n")
	path := filepath.Join(db.root, "postgres-wrapper")
	if err := os.WriteFile(path, []byte(b.String()), 0o755); err != nil {
		return "", fmt.Errorf("writing the server's wrapper: %w", err)
	}
	if err := os.Chmod(path, 0o755); err != nil {
		return "", err
	}
	return path, db.acct.chown(path)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// run runs a PostgreSQL program as the server's user and returns its output.
func (db *DB) run(ctx context.Context, program string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = db.root
	cmd.Env = serverEnv()
	cmd.SysProcAttr = db.acct.credential()
	// On cancellation ask politely first: initdb removes what it made.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			return "", fmt.Errorf("%s %s: %w", filepath.Base(program), args[0], err)
		}
		return "", fmt.Errorf("%s %s: %w: %s", filepath.Base(program), args[0], err, msg)
	}
	return string(out), nil
}

// serverEnv is the environment without libpq's PG* variables, which would
// change what initdb, pg_ctl and postgres do (PGDATA, PGPORT, PGOPTIONS...).
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// tail returns up to n last lines of the file written after offset.
func tail(path string, offset int64, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	if offset <= int64(len(b)) {
		b = b[offset:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
