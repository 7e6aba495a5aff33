package pgseqtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
)

// callTimeout bounds one statement a DB runs: a test that hangs on a lock
// fails with the statement rather than at the go test timeout.
const callTimeout = time.Minute

// Querier is what a DB runs its statements on: a pool, a connection or a
// transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// DB is one test's pgseq schema on the test database. It runs SQL with
// {{schema}} replaced by the schema's quoted name, and fails the test,
// quoting the statement, on any error. Test helpers embed it.
type DB struct {
	T      testing.TB
	Pool   *pgxpool.Pool // the test database's shared pool (pgtest.Pool)
	Schema string        // the schema's name, unquoted

	on           Querier  // where statements run: Pool unless On chose another
	placeholders []string // more placeholders and their values (With)
}

// New returns a DB on a new schema of this test's own (pgtest.Schema: not
// created yet, dropped when the test ends).
func New(t testing.TB) *DB {
	t.Helper()
	return &DB{T: t, Pool: pgtest.Pool(t), Schema: pgtest.Schema(t)}
}

// NewDB returns a DB on a new schema of this test's own with desired
// applied (NewSchema).
func NewDB(t testing.TB, desired catalog.State) *DB {
	t.Helper()
	d := New(t)
	d.Apply(desired)
	return d
}

// On returns a copy of d that runs its statements on q (a connection held
// by the test, a transaction) rather than on the pool.
func (d *DB) On(q Querier) *DB {
	c := *d
	c.on = q
	return &c
}

// With returns a copy of d that also replaces placeholder (like "{{app}}")
// by value in every statement.
func (d *DB) With(placeholder, value string) *DB {
	c := *d
	c.placeholders = append(append([]string(nil), d.placeholders...), placeholder, value)
	return &c
}

// Apply applies desired to the schema as pgseq apply --auto-approve does
// and requires the next plan to be empty (the package's Apply).
func (d *DB) Apply(desired catalog.State) *applier.Result {
	d.T.Helper()
	return Apply(d.T, d.Pool, d.Schema, desired)
}

// SQL returns sql with {{schema}} (and the placeholders of With) replaced.
func (d *DB) SQL(sql string) string {
	if len(d.placeholders) > 0 {
		sql = strings.NewReplacer(d.placeholders...).Replace(sql)
	}
	return migrations.Render(sql, d.Schema)
}

func (d *DB) querier() Querier {
	if d.on != nil {
		return d.on
	}
	return d.Pool
}

// Exec runs a statement.
func (d *DB) Exec(sql string, args ...any) {
	d.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if _, err := d.querier().Exec(ctx, d.SQL(sql), args...); err != nil {
		d.T.Fatalf("%v\nin: %s", err, sql)
	}
}

// Scalar runs a query that returns one row of one column into dest.
func (d *DB) Scalar(dest any, sql string, args ...any) {
	d.T.Helper()
	d.Row(sql, args, dest)
}

// Row runs a query with args that returns one row, into dest.
func (d *DB) Row(sql string, args []any, dest ...any) {
	d.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := d.querier().QueryRow(ctx, d.SQL(sql), args...).Scan(dest...); err != nil {
		d.T.Fatalf("%v\nin: %s", err, sql)
	}
}

// Query runs a query and returns its rows, for the caller to read and
// close.
func (d *DB) Query(sql string, args ...any) pgx.Rows {
	d.T.Helper()
	rows, err := d.querier().Query(context.Background(), d.SQL(sql), args...)
	if err != nil {
		d.T.Fatalf("%v\nin: %s", err, sql)
	}
	return rows
}

// Column runs a query of one column and returns its values.
func Column[T any](d *DB, sql string, args ...any) []T {
	d.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	rows, err := d.querier().Query(ctx, d.SQL(sql), args...)
	var out []T
	if err == nil {
		out, err = pgx.CollectRows(rows, pgx.RowTo[T])
	}
	if err != nil {
		d.T.Fatalf("%v\nin: %s", err, sql)
	}
	return out
}

// RequireSchemasGone requires that no schema's name starts with d.Schema:
// what code that makes schemas of its own named after a prefix (a
// benchmark run's SchemaPrefix, d.Schema) must leave once it is done.
func (d *DB) RequireSchemasGone() {
	d.T.Helper()
	left := Column[string](d, `SELECT nspname::text FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY 1`, d.Schema)
	if len(left) > 0 {
		d.T.Fatalf("schemas named after %s are left: %s", d.Schema, strings.Join(left, ", "))
	}
}

// StatusCounts returns the number of tasks in each status that has any.
func (d *DB) StatusCounts() map[string]int {
	d.T.Helper()
	const sql = `SELECT status::text, count(*)::int FROM {{schema}}.tasks GROUP BY 1`
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out := map[string]int{}
	var status string
	var n int
	rows, err := d.querier().Query(ctx, d.SQL(sql))
	if err == nil {
		_, err = pgx.ForEachRow(rows, []any{&status, &n}, func() error { out[status] = n; return nil })
	}
	if err != nil {
		d.T.Fatalf("%v\nin: %s", err, sql)
	}
	return out
}
