package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Role is a login role created for one test. Roles are cluster-wide: its
// name is unique to the test (from the test schema's random suffix), and
// it is dropped, with every privilege it holds, when the test ends.
type Role struct {
	Name     string
	Password string
}

// NewRole creates a login role named from schema (the test's, from
// Schema) and suffix, with a random password, through pool.
func NewRole(t testing.TB, pool *pgxpool.Pool, schema, suffix string) Role {
	t.Helper()
	random := make([]byte, 12)
	_, _ = rand.Read(random) // crypto/rand.Read never fails
	r := Role{Name: "r" + schema[len(schema)-8:] + "_" + suffix, Password: hex.EncodeToString(random)}
	// A password literal cannot be a parameter of CREATE ROLE; it is hex.
	if _, err := pool.Exec(context.Background(), "CREATE ROLE "+pgx.Identifier{r.Name}.Sanitize()+" LOGIN PASSWORD '"+r.Password+"'"); err != nil {
		t.Fatalf("creating test role %s: %v", r.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// DROP OWNED revokes what the role was granted in this database.
		q := pgx.Identifier{r.Name}.Sanitize()
		if _, err := pool.Exec(ctx, "DROP OWNED BY "+q+"; DROP ROLE "+q); err != nil {
			t.Errorf("dropping test role %s: %v", r.Name, err)
		}
	})
	return r
}

// PoolAs connects to the test database as role. It is closed when the test
// ends, before the role is dropped.
func PoolAs(t testing.TB, role Role) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(ConnString(t))
	if err != nil {
		t.Fatalf("parsing the test database's connection string: %v", err)
	}
	cfg.ConnConfig.User = role.Name
	cfg.ConnConfig.Password = role.Password
	cfg.MaxConns = 8
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		t.Fatalf("connecting as %s: %v", role.Name, err)
	}
	t.Cleanup(pool.Close)
	return pool
}
