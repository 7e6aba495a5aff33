// Package pgtest gives tests a real PostgreSQL database.
//
// Tests use the database PGSEQ_TEST_DATABASE_URL names, else the database
// pgseq_test in the built-in local database at <module root>/.pgseq (package
// localdb), which the first test to ask starts; parallel test binaries share
// it. Each test isolates itself in a schema of its own (Schema), dropped when
// the test ends.
//
// Tests never skip for lack of a database: without one they fail, saying how
// to get one.
package pgtest
