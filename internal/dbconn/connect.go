package dbconn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultConnectTimeout bounds establishing a connection when the connection
// string sets no connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// Connect opens a connection pool to the database connString names (empty:
// libpq's PG* variables and defaults) and pings it, so an unreachable server
// fails here. Every connection reports appName (e.g. "pgseq apply") as its
// application_name unless the connection string or PGAPPNAME sets one, as
// libpq's fallback_application_name does. Pool settings come from the
// connection string (pool_max_conns and friends, see pgxpool.ParseConfig).
//
// Errors read "connecting to <target>: <reason>" on one line, with the
// password masked; errors.As still finds pgx's errors (*pgconn.PgError...)
// in them. The caller closes the pool.
func Connect(ctx context.Context, connString, appName string) (*pgxpool.Pool, error) {
	cfg, err := ParseConfig(connString, appName)
	if err != nil {
		return nil, err
	}
	return ConnectConfig(ctx, cfg)
}

// ParseConfig is the first half of Connect, for callers that adjust the pool
// configuration (MaxConns...) before ConnectConfig.
func ParseConfig(connString, appName string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, redactError(&wrapped{msg: fmt.Sprintf("connecting to %s: %s", target(connString, nil), reason(err)), err: err})
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok && appName != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = appName
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	return cfg, nil
}

// ConnectConfig is the second half of Connect: it opens a pool with cfg and
// pings the server.
func ConnectConfig(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		if err = pool.Ping(ctx); err != nil {
			pool.Close()
		}
	}
	if err != nil {
		msg := fmt.Sprintf("connecting to %s: %s", target(cfg.ConnString(), cfg), reason(err))
		return nil, redactError(&wrapped{msg: msg, err: err}, cfg.ConnConfig.Password)
	}
	return pool, nil
}

// target names the database for messages: the redacted connection string,
// or for an empty one (libpq environment) the parts that matter.
func target(connString string, cfg *pgxpool.Config) string {
	if strings.TrimSpace(connString) != "" {
		return Redact(connString)
	}
	if cfg == nil {
		return "the database named by the PG* environment variables"
	}
	c := cfg.ConnConfig
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s (from the PG* environment variables)", c.Host, c.Port, c.User, c.Database)
}

// reason describes what went wrong in a pgx connection or parse error on one
// line, without what the message names already: pgconn.ConnectError repeats
// user and database and ParseConfigError the connection string. Errors of
// several connection attempts (hosts, TLS then plain) are joined by "; ",
// repeated ones once.
func reason(err error) string {
	msg := err.Error()
	var ce *pgconn.ConnectError
	var pe *pgconn.ParseConfigError
	switch {
	case errors.As(err, &ce) && ce.Unwrap() != nil:
		msg = ce.Unwrap().Error()
	case errors.As(err, &pe):
		msg = pe.Error()
		if rest, ok := strings.CutPrefix(msg, "cannot parse `"); ok {
			if _, after, ok := strings.Cut(rest, "`: "); ok {
				msg = after
			}
		}
	}
	var lines []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "; ")
}

// wrapped is an error with its own message that unwraps to the original.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// redactError returns err with a message in which Redact masked connection
// strings and in which password, when known, does not appear verbatim
// (pgx's messages should not quote it; this makes sure). A password shorter
// than 4 bytes is not searched for: masking it would garble the message
// without hiding much.
func redactError(err error, password ...string) error {
	msg := Redact(err.Error())
	for _, p := range password {
		if len(p) >= 4 {
			msg = strings.ReplaceAll(msg, p, mask)
		}
	}
	return &wrapped{msg: msg, err: err}
}
