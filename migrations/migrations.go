package migrations

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed sql/*.sql
var files embed.FS

// DefaultSchema is the schema pgseq uses unless told otherwise.
const DefaultSchema = "pgseq"

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// ID names the migration as its file does, without .sql: "014_lean_hand_off".
func (m Migration) ID() string { return fmt.Sprintf("%03d_%s", m.Version, m.Name) }

// All returns every migration in version order.
func All() []Migration {
	entries, err := fs.ReadDir(files, "sql")
	if err != nil {
		panic(fmt.Sprintf("reading embedded migrations: %v", err))
	}
	var out []Migration
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sql")
		num, rest, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			panic(fmt.Sprintf("migration file %q is not named NNN_name.sql", e.Name()))
		}
		b, err := files.ReadFile("sql/" + e.Name())
		if err != nil {
			panic(fmt.Sprintf("reading migration %s: %v", e.Name(), err))
		}
		out = append(out, Migration{Version: v, Name: rest, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			panic(fmt.Sprintf("migration versions must be 1, 2, 3…; found %d at position %d", m.Version, i+1))
		}
	}
	return out
}

// Latest is the version of the newest migration this build knows.
func Latest() int { return len(All()) }

// Render returns a migration's SQL for a schema: {{schema}} becomes the
// quoted identifier, so no user string is ever spliced into SQL unquoted.
func Render(sql, schema string) string {
	return strings.ReplaceAll(sql, "{{schema}}", pgx.Identifier{schema}.Sanitize())
}

// RowQuerier is the narrow interface Version needs: a pool, a connection or
// a transaction.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ErrNewerSchema means the database was migrated by a newer pgseq.
var ErrNewerSchema = errors.New("database schema is newer than this pgseq")

// Version returns the schema's current version: 0 when the schema or its
// migration table does not exist.
func Version(ctx context.Context, db RowQuerier, schema string) (int, error) {
	var exists bool
	err := db.QueryRow(ctx,
		`SELECT to_regclass(format('%I.schema_migrations', $1::text)) IS NOT NULL`, schema).Scan(&exists)
	if err != nil {
		return 0, fmt.Errorf("checking schema %q: %w", schema, err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	q := Render(`SELECT coalesce(max(version), 0) FROM {{schema}}.schema_migrations`, schema)
	if err := db.QueryRow(ctx, q).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading schema version of %q: %w", schema, err)
	}
	return v, nil
}

// Up brings the schema to the latest version inside tx, which the caller
// commits. The caller holds pgseq's apply lock for the schema, so two
// migrators never race. It returns the versions it applied.
func Up(ctx context.Context, tx pgx.Tx, schema string) ([]int, error) {
	return UpTo(ctx, tx, schema, Latest())
}

// UpTo is Up to version target (at most Latest) rather than the latest:
// for tests that upgrade a schema as an older pgseq left it. A schema
// already at target or beyond is left as it is.
func UpTo(ctx context.Context, tx pgx.Tx, schema string, target int) ([]int, error) {
	current, err := Version(ctx, tx, schema)
	if err != nil {
		return nil, err
	}
	all := All()
	if current > len(all) {
		return nil, fmt.Errorf("%w: schema %q is at version %d, this pgseq knows up to %d; upgrade pgseq", ErrNewerSchema, schema, current, len(all))
	}
	if target > len(all) {
		return nil, fmt.Errorf("migrating schema %q to version %d: this pgseq knows up to %d", schema, target, len(all))
	}
	if current >= target {
		return nil, nil
	}
	if current == 0 {
		// CREATE SCHEMA only when the schema is missing: IF NOT EXISTS
		// checks CREATE on the database first, which a role given a
		// schema made for it (a managed database's usual set-up) lacks.
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT to_regnamespace($1::text) IS NOT NULL`, pgx.Identifier{schema}.Sanitize()).Scan(&exists); err != nil {
			return nil, fmt.Errorf("checking schema %q: %w", schema, err)
		}
		if !exists {
			if _, err := tx.Exec(ctx, Render(`CREATE SCHEMA {{schema}}`, schema)); err != nil {
				return nil, fmt.Errorf("creating schema %q: %w", schema, err)
			}
		}
		boot := Render(`CREATE TABLE {{schema}}.schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);`, schema)
		if _, err := tx.Exec(ctx, boot); err != nil {
			return nil, fmt.Errorf("creating schema %q: %w", schema, err)
		}
	}
	var applied []int
	for _, m := range all[current:target] {
		if _, err := tx.Exec(ctx, Render(m.SQL, schema)); err != nil {
			return nil, fmt.Errorf("applying migration %s to schema %q: %w", m.ID(), schema, err)
		}
		ins := Render(`INSERT INTO {{schema}}.schema_migrations (version, name) VALUES ($1, $2)`, schema)
		if _, err := tx.Exec(ctx, ins, m.Version, m.Name); err != nil {
			return nil, fmt.Errorf("recording migration %s: %w", m.ID(), err)
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}
