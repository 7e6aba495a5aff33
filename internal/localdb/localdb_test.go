package localdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// newTestDB returns a local database under dir that is stopped and removed
// when the test ends.
func newTestDB(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := New(dir)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, db.Stop(ctx))
		require.NoError(t, os.RemoveAll(db.aux))
		require.NoError(t, os.RemoveAll(db.dir))
	})
	return db
}

// queryOne runs a one-row query on the database at url.
func queryOne(t *testing.T, url, sql string, dest ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.NoError(t, conn.QueryRow(ctx, sql).Scan(dest...))
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// t.TempDir is private (0700): as root the server's user cannot reach it
	// and the cluster must move to /tmp/pgseq-<hash>.
	db := newTestDB(t, filepath.Join(t.TempDir(), ".pgseq"))
	if os.Geteuid() == 0 {
		require.Equal(t, db.aux, db.root)
	} else {
		require.Equal(t, db.dir, db.root)
	}

	st, err := db.Status()
	require.NoError(t, err)
	require.False(t, st.Running)
	require.Zero(t, st.PID)
	require.Empty(t, st.Version)

	url, err := db.Start(ctx)
	require.NoError(t, err)
	require.Equal(t, db.URL(), url)

	var user, database, listen, maxConns, fsync, syncCommit, sharedBuffers string
	queryOne(t, url, `SELECT current_user, current_database(),
			current_setting('listen_addresses'), current_setting('max_connections'),
			current_setting('fsync'), current_setting('synchronous_commit'),
			current_setting('shared_buffers')`,
		&user, &database, &listen, &maxConns, &fsync, &syncCommit, &sharedBuffers)
	require.Equal(t, []string{"pgseq", "pgseq", "", "300", "on", "on", "256MB"},
		[]string{user, database, listen, maxConns, fsync, syncCommit, sharedBuffers})

	st, err = db.Status()
	require.NoError(t, err)
	require.True(t, st.Running)
	require.NotZero(t, st.PID)
	require.NotEmpty(t, st.Version)
	require.Equal(t, url, st.URL)
	require.FileExists(t, st.LogFile)
	fi, err := os.Stat(st.SocketDir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "trust authentication: a private socket directory")

	// Start is idempotent.
	again, err := db.Start(ctx)
	require.NoError(t, err)
	require.Equal(t, url, again)
	st2, err := db.Status()
	require.NoError(t, err)
	require.Equal(t, st.PID, st2.PID)

	require.NoError(t, db.Stop(ctx))
	st, err = db.Status()
	require.NoError(t, err)
	require.False(t, st.Running)
	require.NoError(t, db.Stop(ctx), "stopping a stopped database")

	_, err = db.Start(ctx)
	require.NoError(t, err)

	t.Run("SIGKILL", func(t *testing.T) {
		// A connected client keeps a backend that outlives the server for a
		// moment: Start must wait for it instead of failing.
		conn, err := pgx.Connect(ctx, url)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		st, err := db.Status()
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(st.PID, syscall.SIGKILL))
		// The signal takes a moment to land; the orphaned backends live on.
		require.Eventually(t, func() bool { return !usesDir(st.PID, db.dataDir()) }, 10*time.Second, 10*time.Millisecond)

		_, err = db.Start(ctx)
		require.NoError(t, err)
		var one int
		queryOne(t, url, "SELECT 1", &one)
		require.Equal(t, 1, one)
	})

	t.Run("pid reused after a restart", func(t *testing.T) {
		require.NoError(t, db.Stop(ctx))
		// A live process of the server's user holds the pid recorded in the
		// stale postmaster.pid, as happens after a machine restart.
		sleep := exec.Command("sleep", "60")
		sleep.SysProcAttr = db.acct.credential()
		require.NoError(t, sleep.Start())
		defer func() {
			_ = sleep.Process.Kill()
			_ = sleep.Wait()
		}()
		pidFile := filepath.Join(db.dataDir(), "postmaster.pid")
		require.NoError(t, os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n%s\n", sleep.Process.Pid, db.dataDir()), 0o600))
		require.NoError(t, db.acct.chown(pidFile))

		_, err := db.Start(ctx)
		require.NoError(t, err)
		var one int
		queryOne(t, url, "SELECT 1", &one)
		require.Equal(t, 1, one)
	})
}

// helperDirEnv tells TestHelperStart, run as a subprocess, which directory to start.
const helperDirEnv = "PGSEQ_LOCALDB_HELPER_DIR"

func TestConcurrentStart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	parent, err := os.MkdirTemp("", "localdb-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(parent, 0o755)) // reachable by the server's user
	t.Cleanup(func() { require.NoError(t, os.RemoveAll(parent)) })
	// A long path: the socket cannot live in it.
	dir := filepath.Join(parent, strings.Repeat("a-rather-long-directory-name/", 3), ".pgseq")
	db := newTestDB(t, dir)
	require.Equal(t, db.dir, db.root)
	require.Equal(t, filepath.Join(db.aux, "run"), db.socketDir)

	const goroutines, processes = 4, 3
	var wg sync.WaitGroup
	urls := make([]string, goroutines)
	errs := make([]error, goroutines+processes)
	for i := range goroutines {
		wg.Go(func() {
			db, err := New(dir)
			if err == nil {
				urls[i], err = db.Start(ctx)
			}
			errs[i] = err
		})
	}
	for i := range processes {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperStart$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[goroutines+i] = fmt.Errorf("process %d: %w\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	for _, url := range urls {
		require.Equal(t, db.URL(), url)
	}
	var one int
	queryOne(t, db.URL(), "SELECT 1", &one)
	require.Equal(t, 1, one)
}

// TestHelperStart is TestConcurrentStart's subprocess; on its own it does nothing.
func TestHelperStart(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		return
	}
	db, err := New(dir)
	require.NoError(t, err)
	_, err = db.Start(t.Context())
	require.NoError(t, err)
}

func TestURLParses(t *testing.T) {
	t.Parallel()
	db, err := New("/work/main/.pgseq")
	require.NoError(t, err)
	url := db.URL()
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	require.Equal(t, db.socketDir, cfg.Host)
	require.EqualValues(t, 5432, cfg.Port)
	require.Equal(t, "pgseq", cfg.User)
	require.Equal(t, "pgseq", cfg.Database)
	if db.socketDir == "/work/main/.pgseq/run" {
		require.Equal(t, "postgres://pgseq@/pgseq?host=%2Fwork%2Fmain%2F.pgseq%2Frun&port=5432", url)
	}
}

func TestFindBinaries(t *testing.T) {
	t.Parallel()
	b, err := FindBinaries()
	require.NoError(t, err, "these tests need the PostgreSQL server binaries")
	for _, p := range []string{b.Initdb, b.PgCtl, b.Postgres} {
		require.True(t, filepath.IsAbs(p), p)
		require.True(t, isExecutable(p), p)
	}
	require.NotContains(t, ErrNoBinaries.Error(), "\n")
	require.Contains(t, ErrNoBinaries.Error(), "apt-get install postgresql")
}

func TestNoBinaries(t *testing.T) {
	// Not parallel: it changes PATH and debianRoot.
	t.Setenv("PATH", t.TempDir())
	old := debianRoot
	debianRoot = t.TempDir()
	defer func() { debianRoot = old }()

	db, err := New(filepath.Join(t.TempDir(), ".pgseq"))
	require.NoError(t, err)
	_, err = db.Start(t.Context())
	require.ErrorIs(t, err, ErrNoBinaries)
	require.NotContains(t, err.Error(), "\n", "one line")
	require.NoDirExists(t, db.Dir(), "nothing created")
}

func TestVersionLess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		less bool
	}{
		{"9.6", "10", true},
		{"10", "9.6", false},
		{"15", "16", true},
		{"16", "15", false},
		{"15", "15", false},
		{"15", "15.1", true},
		{"devel", "9.6", true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.less, versionLess(tt.a, tt.b), "%s < %s", tt.a, tt.b)
	}
}

func TestMajorVersion(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"15.20 (Debian 15.20-0+deb12u1)\n": "15",
		"16beta1":                          "16",
		"9.6.24":                           "9.6",
		"17.0":                             "17",
	}
	for in, want := range tests {
		require.Equal(t, want, majorVersion(in), in)
	}
}
