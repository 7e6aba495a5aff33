package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/localdb"
)

const (
	// EnvURL names the variable holding the test database's connection
	// string. When it is unset, tests use the built-in local database.
	EnvURL = "PGSEQ_TEST_DATABASE_URL"

	// Database is the database tests use in the built-in local cluster,
	// apart from the pgseq database the CLI uses there.
	Database = "pgseq_test"

	// MaxConns is the size of the shared pool, enough for tests that open
	// 20 and more connections at once.
	MaxConns = 40

	// setupTimeout bounds creating and starting the local cluster.
	setupTimeout = 3 * time.Minute
)

var (
	connOnce   sync.Once
	connString string
	connErr    error

	poolOnce sync.Once
	pool     *pgxpool.Pool
	poolErr  error
)

// ConnString returns the connection string of the test database, for tests
// that run the pgseq binary. Without a database the test fails, saying how
// to get one.
func ConnString(t testing.TB) string {
	t.Helper()
	connOnce.Do(func() { connString, connErr = resolve() })
	if connErr != nil {
		t.Fatalf("no test database: %v", connErr)
	}
	return connString
}

// Pool returns the pool to the test database shared by all tests of the test
// binary (at most MaxConns connections). Tests must not close it.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cs := ConnString(t)
	poolOnce.Do(func() { pool, poolErr = newPool(cs) })
	if poolErr != nil {
		t.Fatalf("no test database: %v", poolErr)
	}
	return pool
}

// Schema returns a new schema name unique to this test, like
// t_testapply_3f9c2a1b: lowercase, at most 63 bytes. The schema is not
// created (pgseq's migrations create their schema); it is dropped with
// everything in it when the test ends.
func Schema(t testing.TB) string {
	t.Helper()
	p := Pool(t)
	name := schemaName(t.Name())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := p.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping test schema %s: %v", name, err)
		}
	})
	return name
}

// schemaName makes t_<test name>_<8 random hex digits> from a test name.
func schemaName(testName string) string {
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(testName) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			underscore = false
		} else if !underscore {
			b.WriteByte('_')
			underscore = true
		}
	}
	// t_ + name + _ + 8 hex digits <= 63 bytes.
	name := strings.Trim(b.String(), "_")
	if len(name) > 63-len("t__")-8 {
		name = strings.TrimRight(name[:63-len("t__")-8], "_")
	}
	random := make([]byte, 4)
	_, _ = rand.Read(random) // crypto/rand.Read never fails
	return "t_" + name + "_" + hex.EncodeToString(random)
}

// resolve returns PGSEQ_TEST_DATABASE_URL, or starts the built-in local
// database at <module root>/.pgseq and returns the URL of its test database.
func resolve() (string, error) {
	if cs := strings.TrimSpace(os.Getenv(EnvURL)); cs != "" {
		return cs, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	db, err := localdb.New(filepath.Join(root, localdb.DefaultDir))
	if err != nil {
		return "", fixHint(err)
	}
	if _, err := db.Start(ctx); err != nil {
		return "", fixHint(err)
	}
	cs, err := db.CreateDatabase(ctx, Database)
	if err != nil {
		return "", fixHint(err)
	}
	return cs, nil
}

// fixHint adds how to get a test database to a failure of the local one.
func fixHint(err error) error {
	if errors.Is(err, localdb.ErrNoBinaries) {
		return fmt.Errorf("%w\n(tests need PostgreSQL: install the server binaries, or set %s to a database tests may create schemas in)", err, EnvURL)
	}
	return fmt.Errorf("%w\n(set %s to use another database)", err, EnvURL)
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: cannot place the local database; set %s", EnvURL)
		}
		dir = parent
	}
}

// newPool connects to the test database and checks it answers.
func newPool(cs string) (*pgxpool.Pool, error) {
	cfg, err := dbconn.ParseConfig(cs, "pgseq test")
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = MaxConns
	cfg.MaxConnIdleTime = 30 * time.Second // parallel test binaries share max_connections
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return dbconn.ConnectConfig(ctx, cfg)
}
