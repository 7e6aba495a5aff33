package dbconn

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/dbconn/dbconntest"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// Malformed and scheme-less connection strings: Redact masks the password
// (and may mask more), keeps it idempotent, and leaves text that is no
// connection string alone.
func TestRedactMalformedAndSchemeless(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		// postgres:// URLs with unencoded characters in the password.
		{"postgres://alice:sec ret@host/db", "postgres://alice:***@host/db"},
		{"postgresql://alice:sec ret@host:5432/db?sslmode=require", "postgresql://alice:***@host:5432/db?sslmode=require"},
		{"  postgres://alice:sec ret@host/db ", "  postgres://alice:***@host/db "},
		{"postgres://alice:Kq7v Wm3z/x@127.0.0.1:1/db", "postgres://alice:***@127.0.0.1:1/db"},
		{"postgres://alice:p@ss@host/db", "postgres://alice:***@host/db"},
		{"postgres://alice:p@ss?x@host/db", "postgres://alice:***@host/db"},
		// libpq ends the userinfo at an '@' before the first '/': the
		// password is "12?ss", though "u:12" reads like host:port.
		{"postgres://u:12?ss@h/db", "postgres://u:***@h/db"},
		// Without userinfo, as libpq reads it: host alice, port 5432,
		// database "Wm3z@h/db"; but the '/' after the '@' gives it away.
		{"postgres://alice:5432/Wm3z@h/db", "postgres://alice:***@h/db"},
		{"postgres://h/db?password=a b&sslmode=require", "postgres://h/db?password=***&sslmode=require"},
		{"postgres://h/db?password=a%zz&sslmode=require", "postgres://h/db?password=***&sslmode=require"},
		// No scheme, or a misspelt one.
		{"alice:p@ss@host", "alice:***@host"},
		{"alice:p@ss@host:5432/db", "alice:***@host:5432/db"},
		{"app:pw@host/db", "app:***@host/db"},
		{"app:sec ret@host/db", "app:***@host/db"},
		{"postgress://alice:secret@host/db", "postgress://alice:***@host/db"},
		{"postgres//alice:secret@host/db", "postgres//alice:***@host/db"},
		{"postgres:/alice:secret@host/db", "postgres:/alice:***@host/db"},
		{"postgress://h/db?password=secret&sslmode=disable", "postgress://h/db?password=***"},
		// Keyword/value strings libpq refuses: everything after the
		// password keyword is masked.
		{"host=h password pw", "host=h password ***"},
		{"host=h password pw dbname=d", "host=h password ***"},
		{"host=h port=1 password=\"dq pw\" dbname=d", "host=h port=1 password=***"},
		{"host=h password=sec ret dbname=d", "host=h password=***"},
		{"host=h password='it''s' dbname=d", "host=h password=***"},
		{"host=h app:pw@x password=secret", "host=h app:***@x password=***"},
		// Well-formed keyword/value: double quotes are part of the value.
		{`host=h password="dq" dbname=d`, `host=h password=*** dbname=d`},
		// Text that embeds malformed connection strings.
		{"connecting to postgres://alice:sec ret@host/db: failed", "connecting to postgres://alice:***@host/db: failed"},
		{"cannot use app:pw@host/db here", "cannot use app:***@host/db here"},
		{"invalid (postgress://alice:pw@h/db): x", "invalid (postgress://alice:***@h/db): x"},
		{"see password=\"a b\" there", "see password=*** there"},
		// Masked text stays as it is, punctuation included.
		{"invalid connection string in X (host=h password=***): failed", "invalid connection string in X (host=h password=***): failed"},
		{"connecting to host=h password=***: failed", "connecting to host=h password=***: failed"},
		// Not masked: well-formed strings keep users and hosts, and text
		// without connection strings is left alone.
		{"postgres://alice@host/db?application_name=a@b", "postgres://alice@host/db?application_name=a@b"},
		{"postgres://alice:secret@h1:5432,h2/db?application_name=x%20y", "postgres://alice:***@h1:5432,h2/db?application_name=x%20y"},
		{"postgres://h:5432/my@db?sslmode=require", "postgres://h:5432/my@db?sslmode=require"},
		{"host=h user=alice dbname=d", "host=h user=alice dbname=d"},
		{`server error: FATAL: password authentication failed for user "alice" (SQLSTATE 28P01)`, `server error: FATAL: password authentication failed for user "alice" (SQLSTATE 28P01)`},
		{"Error: apply lock held by pgseq apply (root@myhost) since 10:00:01", "Error: apply lock held by pgseq apply (root@myhost) since 10:00:01"},
		{"10:00:01 root@host", "10:00:01 root@host"},
		{"examples/a.hcl:3:1: error: Unknown table", "examples/a.hcl:3:1: error: Unknown table"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Redact(tt.in)
			require.Equal(t, tt.want, got)
			require.Equal(t, got, Redact(got), "Redact of a redacted string changes nothing")
		})
	}
}

// Resolve refuses malformed connection strings from every source, naming
// the source, with no piece of the password in the message.
func TestResolveMalformedWithoutPassword(t *testing.T) {
	t.Parallel()
	connStrings := []string{
		"postgres://alice:Kq7v Wm3z@127.0.0.1/db",
		"postgres://alice:Kq7v Wm3z/x@127.0.0.1/db",
		"postgres://alice:Kq7v@Wm3z@127.0.0.1/db", // parses, with host "Wm3z@127.0.0.1"
		"alice:Kq7v Wm3z@127.0.0.1/db",
		"alice:Kq7v@Wm3z@127.0.0.1",
		"alice:Kq7v=Wm3z@127.0.0.1/db", // parses, as the setting "alice:Kq7v"
		"postgress://alice:Kq7v Wm3z@127.0.0.1/db",
		"postgres//alice:Kq7v Wm3z@127.0.0.1/db",
		"host=127.0.0.1 password Kq7v Wm3z",
		"host=127.0.0.1 password=\"Kq7v Wm3z\"",
		"host=127.0.0.1 password=Kq7v Wm3z",
	}
	for _, cs := range connStrings {
		for _, from := range []string{FromFlag, FromPGSeqEnv, FromDatabaseURL} {
			t.Run(from+" "+cs, func(t *testing.T) {
				flag, env := "", map[string]string{}
				if from == FromFlag {
					flag = cs
				} else {
					env[from] = cs
				}
				_, err := Resolve(flag, func(k string) string { return env[k] })
				require.Error(t, err)
				require.Contains(t, err.Error(), "invalid connection string in "+from+" (")
				require.Empty(t, dbconntest.Leaked(err.Error(), "Kq7v Wm3z"), err.Error())
				require.NotContains(t, err.Error(), "\n")
			})
		}
	}
}

// Connect fails fast on malformed strings and says nothing of the
// password, not even through pgx's errors (a DNS lookup of the password's
// tail, a quoted piece of the string).
func TestConnectMalformedWithoutPassword(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	// "alice:Kq7v=Wm3z@host/db" parses as keyword/value: the setting
	// "alice:Kq7v", which a server would quote.
	passwords := []string{"Kq7v Wm3z", "Kq7v@Wm3z", "Kq7v/Wm3z", "Kq7v Wm3z/Xr5p", "Kq7v%Wm3z", "Kq7v?Wm3z@Xr5p", "Kq7v=Wm3z"}
	for _, pw := range passwords {
		for _, format := range []string{
			"postgres://alice:%s@%s/db",
			"alice:%s@%s/db",
			"postgress://alice:%s@%s/db",
			"postgres//alice:%s@%s/db",
		} {
			cs := fmt.Sprintf(format, pw, addr)
			t.Run(cs, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				_, err := Connect(t.Context(), cs, "pgseq test")
				require.Error(t, err)
				require.Less(t, time.Since(start), 3*time.Second, "fails fast")
				require.Empty(t, dbconntest.Leaked(err.Error(), pw), err.Error())
				require.Empty(t, dbconntest.Leaked(Redact(err.Error()), pw), err.Error())
			})
		}
	}
	for _, cs := range []string{
		"host=127.0.0.1 port=1 password Kq7v Wm3z",
		"host=127.0.0.1 port=1 password=\"Kq7v Wm3z\"",
		"host=127.0.0.1 port=1 password=Kq7v Wm3z",
		"host=127.0.0.1 port=1 password='Kq7v Wm3z",
	} {
		t.Run(cs, func(t *testing.T) {
			t.Parallel()
			_, err := Connect(t.Context(), cs, "pgseq test")
			require.Error(t, err)
			require.Empty(t, dbconntest.Leaked(err.Error(), "Kq7v Wm3z"), err.Error())
		})
	}
}

// A wrong password, with the default sslmode=prefer against a server
// without TLS: the message leads with the server's refusal of the login,
// not with the TLS attempt that preceded it.
func TestConnectWrongPasswordLeadsWithTheCause(t *testing.T) {
	t.Parallel()
	srv := dbconntest.NewAuthFailServer(t)
	const pw = "Kq7v Wm3z"
	url := "postgres://alice:Kq7v%20Wm3z@" + srv.Addr() + "/db"
	authFailed := srv.Addr() + ` (127.0.0.1): server error: FATAL: password authentication failed for user "alice" (SQLSTATE 28P01)`
	tests := []struct {
		name, connString, want string
	}{
		{"sslmode=prefer (default)", url, "connecting to postgres://alice:***@" + srv.Addr() + "/db: " + authFailed},
		{"sslmode=disable", url + "?sslmode=disable", "connecting to postgres://alice:***@" + srv.Addr() + "/db?sslmode=disable: " + authFailed},
		{"sslmode=allow", url + "?sslmode=allow", "connecting to postgres://alice:***@" + srv.Addr() + "/db?sslmode=allow: " + authFailed},
		{
			"keyword/value",
			"host=127.0.0.1 port=" + fmt.Sprint(srv.Port()) + " user=alice dbname=db password='Kq7v Wm3z'",
			"connecting to host=127.0.0.1 port=" + fmt.Sprint(srv.Port()) + " user=alice dbname=db password=***: " + authFailed,
		},
		{
			"sslmode=require: the TLS refusal is the cause",
			url + "?sslmode=require",
			"connecting to postgres://alice:***@" + srv.Addr() + "/db?sslmode=require: " + srv.Addr() + " (127.0.0.1): tls error: server refused TLS connection",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Connect(t.Context(), tt.connString, "pgseq test")
			require.Error(t, err)
			require.Equal(t, tt.want, err.Error())
			require.Empty(t, dbconntest.Leaked(err.Error(), pw))
		})
	}
	require.Contains(t, srv.Passwords(), pw, "the server got the password")
}

func TestDropRefusedTLS(t *testing.T) {
	t.Parallel()
	const (
		refused = "tls error: server refused TLS connection"
		a       = "10.0.0.1:5432 (db1): "
		b       = "10.0.0.2:5432 (db2): "
	)
	tests := []struct {
		name     string
		in, want []string
	}{
		{
			name: "TLS refused, then the password",
			in:   []string{a + refused, a + "server error: FATAL: password authentication failed"},
			want: []string{a + "server error: FATAL: password authentication failed"},
		},
		{
			name: "only TLS attempts (sslmode=require)",
			in:   []string{a + refused, b + refused},
			want: []string{a + refused, b + refused},
		},
		{
			name: "two hosts, each tried again",
			in:   []string{a + refused, a + "dial error: timeout", b + refused, b + "server error: FATAL: database \"x\" does not exist"},
			want: []string{a + "dial error: timeout", b + "server error: FATAL: database \"x\" does not exist"},
		},
		{
			name: "a later attempt at another host does not count",
			in:   []string{a + refused, b + "dial error: connection refused"},
			want: []string{a + refused, b + "dial error: connection refused"},
		},
		{
			name: "not a TLS refusal",
			in:   []string{a + "tls error: x509: certificate signed by unknown authority", a + "server error: FATAL: no pg_hba.conf entry"},
			want: []string{a + "tls error: x509: certificate signed by unknown authority", a + "server error: FATAL: no pg_hba.conf entry"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, dropRefusedTLS(tt.in))
		})
	}
}
