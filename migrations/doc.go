// Package migrations holds pgseq's own schema as numbered, embedded SQL files
// and the migrator that creates and upgrades it. Every object lives in one
// schema (default "pgseq"); the SQL files name it {{schema}}, which the
// migrator replaces with the quoted schema identifier.
package migrations
