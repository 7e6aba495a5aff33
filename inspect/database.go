package inspect

import (
	"context"
	"fmt"

	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
)

// ReadDatabase identifies the database db is connected to: its name and
// its cluster's system identifier (pg_control_system()), which a saved plan
// records so that apply refuses it in another database. A role that may
// not execute pg_control_system() (some managed services revoke it) gets
// an empty SystemIdentifier: the name alone then identifies the database.
func ReadDatabase(ctx context.Context, db Querier) (*plan.Database, error) {
	d := &plan.Database{}
	var canRead bool
	err := db.QueryRow(ctx, `
		SELECT current_database()::text,
		       has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')`).Scan(&d.Name, &canRead)
	if err != nil {
		return nil, fmt.Errorf("identifying the database: %w", err)
	}
	if !canRead {
		return d, nil
	}
	// A separate statement: PostgreSQL checks the privilege of every
	// function a statement names before running it, CASE or not.
	if err := db.QueryRow(ctx, `SELECT system_identifier::text FROM pg_control_system()`).Scan(&d.SystemIdentifier); err != nil {
		return nil, fmt.Errorf("reading the cluster's system identifier: %w", err)
	}
	return d, nil
}

// QueueNames returns the names of the queues declared in schema, sorted;
// none when the schema has no pgseq objects yet.
func QueueNames(ctx context.Context, db Querier, schema string) ([]string, error) {
	version, err := migrations.Version(ctx, db, schema)
	if err != nil || version == 0 {
		return nil, err
	}
	var names []string
	err = db.QueryRow(ctx, migrations.Render(`SELECT coalesce(array_agg(name::text ORDER BY name), '{}') FROM {{schema}}.queues`, schema)).Scan(&names)
	if err != nil {
		return nil, fmt.Errorf("reading the queues of schema %q: %w", schema, err)
	}
	return names, nil
}
