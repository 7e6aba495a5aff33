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

	for _, tt := range []struct {
		name    string
		err     error
		unknown bool
	}{
		{"connect error", connectErr, false},
		{"pool without a server", fmt.Errorf("claiming up to 20 tasks: %w", poolErr), false},
		{"server error", &pgconn.PgError{Severity: "ERROR", Code: "PS002"}, false},
		{"session terminated (the statement may have committed first)", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}, true},
		{"connection lost after sending", fmt.Errorf("claiming up to 20 tasks: %w", io.ErrUnexpectedEOF), true},
	} {
		require.Equal(t, tt.unknown, outcomeUnknown(tt.err), "%s: %v", tt.name, tt.err)
	}
}
