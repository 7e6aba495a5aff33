package queue

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// A call that could not even connect (the server is down or restarting)
// sent nothing: its outcome is known, and the worker keeps its session
// instead of carrying on under a new id (found by crashtest's
// TestPostgresCrash: every claim tried while the server was down ended
// the session, and the tasks in flight ran again).
func TestOutcomeUnknown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A unix socket directory that does not exist: nothing listens there.
	down := "host=" + filepath.Join(t.TempDir(), "nobody") + " port=5432 user=pgseq dbname=pgseq connect_timeout=5"
	_, connectErr := pgconn.Connect(ctx, down)
	require.Error(t, connectErr)
	pool, err := pgxpool.New(ctx, down)
	require.NoError(t, err)
	defer pool.Close()
	_, poolErr := pool.Query(ctx, "SELECT 1")
	require.Error(t, poolErr)

	refused, err := pgconn.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	refused.Database = "pgseq_no_such_database"
	_, refusedErr := pgconn.ConnectConfig(ctx, refused)
	var fatal *pgconn.PgError
	require.ErrorAs(t, refusedErr, &fatal)
	require.Equal(t, "FATAL", fatal.Severity)

	for _, tt := range []struct {
		name    string
		err     error
		unknown bool
	}{
		{"connect error", connectErr, false},
		{"pool without a server", fmt.Errorf("claiming up to 20 tasks: %w", poolErr), false},
		{"server error", &pgconn.PgError{Severity: "ERROR", Code: "PS002"}, false},
		{"session terminated (the statement may have committed first)", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}, true},
		// As while the server starts up (57P03): the server's FATAL
		// refused the connection, nothing was sent (found by crashtest's
		// TestPostgresCrash when FATAL errors became unknown outcomes).
		{"connect refused by the server with a FATAL", fmt.Errorf("claiming up to 1 tasks: %w", refusedErr), false},
		{"connection lost after sending", fmt.Errorf("claiming up to 20 tasks: %w", io.ErrUnexpectedEOF), true},
	} {
		require.Equal(t, tt.unknown, outcomeUnknown(tt.err), "%s: %v", tt.name, tt.err)
	}
}
