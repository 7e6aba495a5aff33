package inspect

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/migrations"
)

// Every trigger a migration creates is one CheckTrust knows as pgseq's:
// one written so that createTrigger misses it would have every apply
// refuse the schema.
func TestTrustKnowsEveryTriggerOfTheMigrations(t *testing.T) {
	t.Parallel()
	anyTrigger := regexp.MustCompile(`(?i)CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\s`)
	created := 0
	for _, m := range migrations.All() {
		created += len(anyTrigger.FindAllStringIndex(m.SQL, -1))
	}
	tables, names, functions := pgseqTriggers()
	require.Len(t, names, created, "a migration creates a trigger CheckTrust does not recognise: write it as CREATE TRIGGER name … ON {{schema}}.table … EXECUTE FUNCTION {{schema}}.function()")
	require.Len(t, tables, created)
	require.Len(t, functions, created)
	for _, want := range []string{"counter_values_no_lowering", "counter_values_no_delete", "counter_values_no_truncate"} {
		i := slices.Index(names, want)
		require.GreaterOrEqual(t, i, 0, "trigger %s", want)
		require.Equal(t, "counter_values", tables[i])
		require.Equal(t, "counter_values_guard", functions[i])
	}
}
