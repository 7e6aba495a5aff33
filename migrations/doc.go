// Package migrations holds pgseq's own schema as numbered, embedded SQL files
// and the migrator that creates and upgrades it. Every object lives in one
// schema (default "pgseq"); the SQL files name it {{schema}}, which the
// migrator replaces with the quoted schema identifier.
//
// Two generated files sit beside the migrations, for review; neither is
// executed or embedded. schema.sql is the runtime as the migrations leave it
// (tables with their constraints, indexes and triggers, types, every
// function as pg_get_functiondef prints it with its SECURITY DEFINER and SET
// clauses, comments, privileges), dumped from a freshly migrated schema in a
// fixed order with the schema named {{schema}}: a migration that replaces
// one function shows as a diff of that function. sql.sum lists the SHA-256
// of every migration file and a total over the list. Migrations are
// append-only once released: sql.sum's "released NNN" line says which are,
// and a change to any of those fails TestMigrationSums (even with -update,
// which never rewrites their sums); fix it in a new migration instead. The
// newer migrations are still being written and may change, but sql.sum and
// schema.sql must match them: after changing a migration, run
//
//	go test ./migrations -run 'TestSchemaDump|TestMigrationSums' -update
//
// and commit both files with it (TestSchemaDump and TestMigrationSums fail
// until then, saying so). Raising the released line is done by hand in the
// change that releases the newer migrations.
package migrations
