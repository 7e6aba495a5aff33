package dbconn

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Where a connection string came from, as Source.From reports it.
const (
	FromFlag        = "--database-url"
	FromPGSeqEnv    = "PGSEQ_DATABASE_URL"
	FromDatabaseURL = "DATABASE_URL"
	FromLibpqEnv    = "PG* environment variables"
	FromLocal       = "built-in local database"
)

// libpqEnv are the variables that, when any is set, mean the user configured
// a connection through libpq's environment.
var libpqEnv = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"}

// Source is the resolved database setting.
type Source struct {
	// ConnString is the connection string to pass to Connect. It is empty
	// when From is FromLibpqEnv (pgx reads the PG* variables itself) and when
	// Local is true (the caller starts the local database for its URL).
	ConnString string
	// From says where the setting came from: one of the From* constants.
	From string
	// Local is true when nothing is configured and pgseq should use the
	// built-in local database; the caller should say so on stderr.
	Local bool
}

// Resolve picks the database to use: flagURL (the --database-url flag) if
// set, else PGSEQ_DATABASE_URL, else DATABASE_URL, else libpq's PG*
// variables if any of PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGUSER or
// PGSERVICE is set, else the built-in local database. getenv is usually
// os.Getenv. Blank values count as unset. A connection string that does not
// parse is an error naming where it came from, with the password masked.
func Resolve(flagURL string, getenv func(string) string) (Source, error) {
	candidates := []struct{ from, value string }{
		{FromFlag, flagURL},
		{FromPGSeqEnv, getenv("PGSEQ_DATABASE_URL")},
		{FromDatabaseURL, getenv("DATABASE_URL")},
	}
	for _, c := range candidates {
		if strings.TrimSpace(c.value) == "" {
			continue
		}
		cfg, err := pgconn.ParseConfig(c.value)
		if err == nil {
			err = checkConfig(cfg)
		}
		if err != nil {
			why := maskReason(reason(err)+hint(c.value), c.value, "", false)
			return Source{}, &wrapped{msg: fmt.Sprintf("invalid connection string in %s (%s): %s", c.from, target(c.value, nil), why), err: err}
		}
		return Source{ConnString: c.value, From: c.from}, nil
	}
	for _, name := range libpqEnv {
		if strings.TrimSpace(getenv(name)) != "" {
			return Source{From: FromLibpqEnv}, nil
		}
	}
	return Source{From: FromLocal, Local: true}, nil
}
