package pgtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPool(t *testing.T) {
	t.Parallel()
	p := Pool(t)
	require.Same(t, p, Pool(t), "one pool per test binary")
	require.EqualValues(t, MaxConns, p.Config().MaxConns)

	var database, appName string
	require.NoError(t, p.QueryRow(t.Context(), "SELECT current_database(), current_setting('application_name')").Scan(&database, &appName))
	require.Equal(t, "pgseq test", appName)
	if os.Getenv(EnvURL) == "" {
		require.Equal(t, Database, database)
	}
}

func TestConcurrentConnections(t *testing.T) {
	t.Parallel()
	p := Pool(t)
	const n = 25
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var held, wg sync.WaitGroup
	held.Add(n)
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			conn, err := p.Acquire(ctx)
			held.Done()
			if err != nil {
				errs <- err
				return
			}
			defer conn.Release()
			held.Wait() // all n connections are open at once
			var pid int
			errs <- conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestSchema(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("uses it", func(t *testing.T) {
		name = Schema(t)
		require.NotEqual(t, name, Schema(t), "unique")
		_, err := Pool(t).Exec(t.Context(), fmt.Sprintf("CREATE SCHEMA %s; CREATE TABLE %s.x (id int)", name, name))
		require.NoError(t, err)
	})
	var exists bool
	require.NoError(t, Pool(t).QueryRow(t.Context(),
		"SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", name).Scan(&exists))
	require.False(t, exists, "schema %s dropped after the test", name)
}

func TestSchemaName(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^t_[a-z0-9_]*_[0-9a-f]{8}$`)
	tests := []struct{ testName, prefix string }{
		{"TestApply", "t_testapply_"},
		{"TestApply/lowering a limit", "t_testapply_lowering_a_limit_"},
		{"TestÄrger/#01", "t_test_rger_01_"},
		{"Test" + strings.Repeat("VeryLong", 20), "t_test" + strings.Repeat("verylong", 5)},
		{"Test_" + strings.Repeat("x", 46) + "/y", "t_test_" + strings.Repeat("x", 46) + "_"}, // cut after the _
	}
	for _, tt := range tests {
		name := schemaName(tt.testName)
		require.LessOrEqual(t, len(name), 63, name)
		require.Regexp(t, valid, name)
		require.True(t, strings.HasPrefix(name, tt.prefix), "%s has prefix %s", name, tt.prefix)
		require.NotContains(t, name, "__", name)
	}
}

func TestConnString(t *testing.T) {
	t.Parallel()
	cs := ConnString(t)
	require.Equal(t, cs, Pool(t).Config().ConnString())
	if url := os.Getenv(EnvURL); url != "" {
		require.Equal(t, url, cs)
	}
}
