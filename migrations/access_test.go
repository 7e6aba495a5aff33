package migrations_test

import (
	"sort"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// The functions the access levels grant are exactly the runtime's
// SECURITY DEFINER functions, each with the fixed search_path, under the
// signature catalog names; PUBLIC may execute no function of the schema
// and use nothing in it. A migration that adds a function must revoke it
// from PUBLIC (and add it to a level) to pass.
func TestRuntimeRunsWithOwnersRightsAndPublicGetsNothing(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	schema := pgtest.Schema(t)
	_, err := applier.Migrate(bg, pool, schema, 0)
	require.NoError(t, err)

	rows, err := pool.Query(bg, `
		SELECT p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')',
		       coalesce(array_to_string(p.proconfig, ';'), '')
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND p.prosecdef
		ORDER BY 1`, schema)
	require.NoError(t, err)
	type definer struct{ Signature, Config string }
	definers, err := pgx.CollectRows(rows, pgx.RowToStructByPos[definer])
	require.NoError(t, err)
	var signatures []string
	for _, d := range definers {
		signatures = append(signatures, d.Signature)
		require.Contains(t, d.Config, "search_path=pg_catalog, pg_temp", d.Signature)
	}
	want := catalog.EntryPoints()
	sort.Strings(want)
	require.Equal(t, want, signatures, "SECURITY DEFINER functions are the levels' functions")

	var public []string
	require.NoError(t, pool.QueryRow(bg, `
		SELECT coalesce(array_agg(x.what ORDER BY x.what), '{}') FROM (
		    SELECT 'function ' || p.proname AS what
		    FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		    WHERE n.nspname = $1
		      AND (p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0))
		    UNION ALL
		    SELECT 'table ' || c.relname
		    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		    WHERE n.nspname = $1 AND EXISTS (SELECT 1 FROM aclexplode(c.relacl) a WHERE a.grantee = 0)
		    UNION ALL
		    SELECT 'schema' FROM pg_catalog.pg_namespace n
		    WHERE n.nspname = $1 AND EXISTS (SELECT 1 FROM aclexplode(n.nspacl) a WHERE a.grantee = 0)
		) x`, schema).Scan(&public))
	require.Empty(t, public, "PUBLIC holds privileges in the schema")

	// The read level covers every table.
	var tables []string
	require.NoError(t, pool.QueryRow(bg, `
		SELECT array_agg(c.relname::text ORDER BY c.relname)
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`, schema).Scan(&tables))
	require.Equal(t, catalog.Tables, tables)
}
