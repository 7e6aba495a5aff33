// Package localdb manages the built-in local database: a throw-away
// PostgreSQL cluster that pgseq creates and runs itself under a directory
// (the project's .pgseq/, which Locate finds as git finds a repository)
// when no database is configured, and that tests use when
// PGSEQ_TEST_DATABASE_URL is not set.
//
// The cluster is built with the installed PostgreSQL server binaries
// (initdb, pg_ctl, postgres). It listens on a unix socket only, never on
// TCP, so it cannot clash with another server on the machine. Its layout:
//
//	<dir>/pgseq.lock     flock(2) lock serializing Start and Stop across processes
//	<dir>/data/          data directory (superuser pgseq, trust authentication)
//	<dir>/run/           unix socket directory, private (0700): authentication is trust
//	<dir>/postgres.log   server log
//
// Unix socket paths are limited to about 107 bytes, so when <dir>/run would be
// too long the socket lives in /tmp/pgseq-<hash of dir>/run instead.
//
// PostgreSQL refuses to run as root. When pgseq runs as root (CI, containers)
// the server programs run as the postgres user, or nobody when there is no
// postgres user, and the directory is handed over to that user. When that user
// cannot reach the directory (a parent directory such as /root or a private
// temporary directory lacks the search permission), data, socket and log move
// to /tmp/pgseq-<hash of dir>/ instead; only the lock file stays in <dir>.
// Status reports where everything is.
//
// The package needs a unix system (flock, setuid); it is used on Linux and
// macOS.
package localdb
