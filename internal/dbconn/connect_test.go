package dbconn_test

import (
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
