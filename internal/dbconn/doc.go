// Package dbconn decides which database pgseq talks to, connects to it, and
// keeps passwords out of everything pgseq prints.
//
// Resolve applies the precedence of the connection settings: the
// --database-url flag, PGSEQ_DATABASE_URL, DATABASE_URL, libpq's PG*
// variables, else the built-in local database (package localdb), which the
// caller starts and announces on stderr. Connect opens a pgx pool and checks
// the server answers; its errors name the target with the password masked
// and lead with the cause that matters. Redact masks passwords in connection
// strings, well-formed or not, and in any text that embeds them, such as
// error messages. Package dbconntest has a fake server for tests of failed
// logins.
package dbconn
