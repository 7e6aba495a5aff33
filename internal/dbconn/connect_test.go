package dbconn_test

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// withParam adds a parameter to a URL or keyword/value connection string.
func withParam(cs, key, value string) string {
	switch {
	case !strings.Contains(cs, "://"):
		return cs + " " + key + "=" + value
	case strings.Contains(cs, "?"):
		return cs + "&" + key + "=" + value
	default:
		return cs + "?" + key + "=" + value
	}
}

func TestConnect(t *testing.T) {
	t.Parallel()
	cs := pgtest.ConnString(t)
	tests := []struct {
		name, connString, want string
	}{
		{"application name from the caller", cs, "pgseq apply"},
		{"application name from the connection string wins", withParam(cs, "application_name", "mine"), "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pool, err := dbconn.Connect(t.Context(), tt.connString, "pgseq apply")
			require.NoError(t, err)
			defer pool.Close()
			var appName string
			require.NoError(t, pool.QueryRow(t.Context(), "SELECT current_setting('application_name')").Scan(&appName))
			require.Equal(t, tt.want, appName)
		})
	}
}

// A connection that fails says where its setting came from; the PG*
// variables are named by the target already, and a password never shows.
func TestConnectSourceNamesTheSource(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "postgres://nobody:secret@" + l.Addr().String() + "/nodb?connect_timeout=2"
	require.NoError(t, l.Close())
	for _, tc := range []struct {
		from, want string
	}{
		{dbconn.FromFlag, "(from --database-url): "},
		{dbconn.FromPGSeqEnv, "(from PGSEQ_DATABASE_URL): "},
		{dbconn.FromDatabaseURL, "(from DATABASE_URL): "},
		{dbconn.FromLocal, "(the built-in local database): "},
	} {
		_, err := dbconn.ConnectSource(t.Context(), dbconn.Source{ConnString: closed, From: tc.from}, "pgseq plan")
		require.Error(t, err, tc.from)
		require.Contains(t, err.Error(), "connecting to postgres://nobody:***@"+l.Addr().String()+"/nodb?connect_timeout=2 "+tc.want, tc.from)
		require.NotContains(t, err.Error(), "secret", tc.from)
	}
	// A connection string that does not parse names its source too.
	_, err = dbconn.ConnectSource(t.Context(), dbconn.Source{ConnString: "postgres://u:secret@h/db?sslmode=bogus", From: dbconn.FromDatabaseURL}, "pgseq plan")
	require.ErrorContains(t, err, "(from DATABASE_URL): ")
	require.NotContains(t, err.Error(), "secret")
}
