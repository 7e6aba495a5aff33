package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/migrations"
)

// schemaMismatch says how schema's version differs from the one this
// build's SQL is written for (migrations.Latest): "" when they agree or the
// version cannot be read (a role without SELECT on schema_migrations).
func schemaMismatch(ctx context.Context, db migrations.RowQuerier, schema string) string {
	v, err := migrations.Version(ctx, db, schema)
	if err != nil {
		return ""
	}
	latest := migrations.Latest()
	switch {
	case v == 0:
		return fmt.Sprintf("schema %q has no pgseq runtime: run pgseq apply (or pgseq migrate) first", schema)
	case v < latest:
		return fmt.Sprintf("schema %q is at version %d, older than this pgseq's %d: run pgseq apply (or pgseq migrate) "+
			"with this pgseq version to upgrade it; until then calls of functions the upgrade adds or changes may fail", schema, v, latest)
	case v > latest:
		return fmt.Sprintf("schema %q is at version %d, newer than this pgseq's %d: upgrade this program's pgseq module "+
			"to the version that applied it", schema, v, latest)
	}
	return ""
}

// missingFunction adds to err, when it is PostgreSQL's undefined_function
// (42883: the schema lacks a function this build calls), what the schema's
// version says about it.
func missingFunction(ctx context.Context, db migrations.RowQuerier, schema string, err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42883" {
		return err
	}
	if why := schemaMismatch(context.WithoutCancel(ctx), db, schema); why != "" {
		return fmt.Errorf("%w (%s)", err, why)
	}
	return fmt.Errorf("%w (the schema %q may be older than this pgseq: run pgseq apply with this pgseq version)", err, schema)
}

// defaultIsolation returns the isolation level the pool's sessions
// default to (default_transaction_isolation), or "" when it cannot be
// read.
func defaultIsolation(ctx context.Context, db migrations.RowQuerier) string {
	var level string
	if err := db.QueryRow(ctx, `SELECT current_setting('default_transaction_isolation')`).Scan(&level); err != nil {
		return ""
	}
	return level
}

// isolationNote says what the worker does when the pool's sessions default
// to level, an isolation level other than READ COMMITTED.
func isolationNote(level string) string {
	return fmt.Sprintf("the pool's sessions default to %s isolation (default_transaction_isolation); pgseq's calls are written for "+
		"read committed, so the worker runs each of them in a read committed transaction of its own: three round trips "+
		"instead of one. Set default_transaction_isolation = 'read committed' for the worker's role "+
		"(ALTER ROLE … SET default_transaction_isolation = 'read committed') to spare them", level)
}
