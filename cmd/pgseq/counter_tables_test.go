package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCounterRefusesPgseqAndSystemTables: a counter cannot number a table of
// pgseq's own schema or of a PostgreSQL system schema; plan and apply stop
// with a located diagnostic and create nothing.
func TestCounterRefusesPgseqAndSystemTables(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct{ table, column, why string }{
		{c.Schema + ".tasks", "attempts", "pgseq's own schema"},
		{c.Schema + ".counter_values", "value", "pgseq's own schema"},
		{"pg_catalog.pg_class", "relpages", "a PostgreSQL system schema"},
		{"information_schema.sql_features", "feature_id", "a PostgreSQL system schema"},
	} {
		file := writeConfig(t, "queue \"default\" {}\ncounter \"n\" {\n  table  = \""+tc.table+"\"\n  column = \""+tc.column+"\"\n}\n")
		for _, cmd := range [][]string{{"plan"}, {"apply", "--auto-approve"}} {
			r := c.run(append(cmd, file)...)
			require.Equal(t, exitError, r.code, "%s: %s", tc.table, r.stderr)
			require.Contains(t, r.stderr, file+":3:12: error: Table not allowed", tc.table)
			require.Contains(t, r.stderr, tc.why, tc.table)
		}
	}
	require.False(t, c.schemaExists(), "nothing applied")
}
