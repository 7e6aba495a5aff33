package dbconn

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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
// password masked however malformed the connection string is; errors.As
// still finds pgx's errors (*pgconn.PgError...) in them. The reason leads
// with the cause that matters: a TLS attempt the server refused before pgx
// tried again without TLS (sslmode=prefer, the default) is left out. A
// connection string with an unencoded '@' in its password, or that reads as
// a setting whose name no setting has, is refused before any lookup or
// connection (see checkConfig). The caller closes the pool.
func Connect(ctx context.Context, connString, appName string) (*pgxpool.Pool, error) {
	return connect(ctx, connString, "", appName)
}

// ConnectSource is Connect to the database src names, its ConnString set
// (for the built-in local database, by the caller once it started it). Its
// errors also say where the setting came from: "connecting to
// postgres://u:***@h/db (from DATABASE_URL): …".
func ConnectSource(ctx context.Context, src Source, appName string) (*pgxpool.Pool, error) {
	return connect(ctx, src.ConnString, src.From, appName)
}

// ConnectSourcePoolerSafe is ConnectSource with pgx's query mode exec
// (pgx.QueryExecModeExec) unless the connection string names one
// (default_query_exec_mode): it prepares no statement, so it works behind a
// connection pooler in transaction mode (PgBouncer before 1.21 keeps no
// prepared statement, and one prepared on a server connection another
// client gets next fails with 42P05). Every parameter pgseq sends is
// typed, so nothing depends on a Describe. For the commands, whose few
// dozen statements a prepare would not speed up.
func ConnectSourcePoolerSafe(ctx context.Context, src Source, appName string) (*pgxpool.Pool, error) {
	cfg, err := parseConfig(src.ConnString, src.From, appName)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(src.ConnString, "default_query_exec_mode") {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	return connectConfig(ctx, cfg, src.From)
}

func connect(ctx context.Context, connString, from, appName string) (*pgxpool.Pool, error) {
	cfg, err := parseConfig(connString, from, appName)
	if err != nil {
		return nil, err
	}
	return connectConfig(ctx, cfg, from)
}

// ParseConfig is the first half of Connect, for callers that adjust the pool
// configuration (MaxConns...) before ConnectConfig.
func ParseConfig(connString, appName string) (*pgxpool.Config, error) {
	return parseConfig(connString, "", appName)
}

// parseConfig is ParseConfig; errors name from, where connString came
// from, when it is not "".
func parseConfig(connString, from, appName string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err == nil {
		err = checkConfig(&cfg.ConnConfig.Config)
	}
	if err != nil {
		why := maskReason(reason(err)+hint(connString), connString, "", false)
		return nil, &wrapped{msg: fmt.Sprintf("connecting to %s%s: %s", target(connString, nil), origin(from), why), err: err}
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
	return connectConfig(ctx, cfg, "")
}

// connectConfig is ConnectConfig; errors name from, where the connection
// string came from, when it is not "".
func connectConfig(ctx context.Context, cfg *pgxpool.Config, from string) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		if err = pool.Ping(ctx); err != nil {
			pool.Close()
		}
	}
	if err != nil {
		connString := cfg.ConnString()
		why := maskReason(reason(err), connString, cfg.ConnConfig.Password, true)
		return nil, &wrapped{msg: fmt.Sprintf("connecting to %s%s: %s", target(connString, cfg), origin(from), why), err: err}
	}
	return pool, nil
}

// origin says, after a connection's target in a message, where its
// setting came from: " (from DATABASE_URL)". The PG* variables are named
// by the target already, and "" names nothing.
func origin(from string) string {
	switch from {
	case "", FromLibpqEnv:
		return ""
	case FromLocal:
		return " (the " + FromLocal + ")"
	}
	return " (from " + from + ")"
}

// Reasons checkConfig gives for refusing a connection string.
var (
	errHostWithAt = errors.New("a host name contains @: percent-encode @ in the user name or password as %40")
	errBadSetting = errors.New("a setting name has characters other than letters, digits, _ and . (a password or URL where a keyword=value belongs?)")
)

// settingName matches the names of PostgreSQL settings, custom ones
// (myapp.tenant) included.
var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.$]*$`)

// checkConfig refuses connection strings pgx accepts but that are mistakes
// bound to print a piece of the password:
//
//   - A host name with an '@'. No host name has one: it means a URL's
//     password (or user name) has an unencoded '@' and the host is the tail
//     of the password (postgres://u:p@ss@host/db), which a lookup would
//     send to the DNS server and its error would print. Unix socket
//     directories (absolute paths) are not host names.
//   - A run-time parameter whose name cannot be a setting. pgx passes
//     unknown keywords to the server as settings, so "u:secret=x@h/db" (no
//     scheme, a '=' in the password) reads as the setting "u:secret", which
//     the server's error quotes.
func checkConfig(cfg *pgconn.Config) error {
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if strings.Contains(h, "@") && !strings.HasPrefix(h, "/") {
			return errHostWithAt
		}
	}
	for name := range cfg.RuntimeParams {
		if !settingName.MatchString(name) {
			return errBadSetting
		}
	}
	return nil
}

// hint adds to the reason a connection string does not parse what it should
// look like, when it is neither a postgres:// URL nor keyword/value (such as
// postgress://..., postgres//..., user:password@host/db).
func hint(connString string) string {
	t := strings.TrimSpace(connString)
	if t == "" || urlPrefix.MatchString(t) || keywordStart.MatchString(t) {
		return ""
	}
	return " (a connection URL starts with postgres:// or postgresql://; otherwise use keyword=value settings)"
}

// target names the database for messages: the redacted connection string,
// or for an empty one (libpq environment) the parts that matter.
func target(connString string, cfg *pgxpool.Config) string {
	if strings.TrimSpace(connString) != "" {
		redacted, _ := redactConnString(connString)
		return redacted
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
// repeated ones once, and a refused TLS attempt is left out when the server
// was tried again without TLS (see dropRefusedTLS).
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
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	var out []string
	for _, line := range dropRefusedTLS(lines) {
		if !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "; ")
}

// tlsRefused ends pgx's error for a connection attempt to a server that
// does not offer TLS.
const tlsRefused = "tls error: server refused TLS connection"

// dropRefusedTLS leaves out of the errors of connection attempts, one a
// line and each starting with the server's address, those where the server
// refused TLS and pgx then tried the same server again without TLS, as it
// does with sslmode=prefer (the default) and allow: then the later attempt
// has the error that matters (a wrong password, a missing database), and a
// server without TLS is no error. With sslmode=require, nothing follows and
// the refusal is kept.
func dropRefusedTLS(lines []string) []string {
	var out []string
	for i, line := range lines {
		if addr, ok := strings.CutSuffix(line, tlsRefused); ok && triedAgain(lines[i+1:], addr) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// triedAgain reports whether one of later is an attempt at addr (a line
// prefix such as "127.0.0.1:5432 (localhost): ") other than a TLS refusal.
func triedAgain(later []string, addr string) bool {
	for _, line := range later {
		if strings.HasPrefix(line, addr) && !strings.HasSuffix(line, tlsRefused) {
			return true
		}
	}
	return false
}

// wrapped is an error with its own message that unwraps to the original.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }
