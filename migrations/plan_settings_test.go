package migrations_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRuntimeFunctionsTurnJITOff guards migration 006: the runtime's entry
// points run without JIT (their array parameters made the planner expect
// thousands of rows and compile offer_units with LLVM at every call), and
// offer_units keeps its generic plan (re-planning it cost most of a
// one-unit hand-off).
func TestRuntimeFunctionsTurnJITOff(t *testing.T) {
	r := newRT(t, state(queueCfg("q"), task("t", 10)))
	rows, err := r.Pool.Query(bg, `
		SELECT p.proname, coalesce(array_to_string(p.proconfig, ','), '')
		FROM pg_proc p WHERE p.pronamespace = $1::regnamespace
		  AND p.proname IN ('enqueue', 'enqueue_batch', 'claim', 'complete', 'complete_and_take', 'fail', 'release',
		                    'recover_dead_workers', 'run_maintenance', 'offer_units',
		                    'next_value', 'next_values', 'reserve', 'commit_reservation')`, r.Schema)
	require.NoError(t, err)
	config := map[string]string{}
	for rows.Next() {
		var name, cfg string
		require.NoError(t, rows.Scan(&name, &cfg))
		config[name] = cfg
	}
	require.NoError(t, rows.Err())
	require.Len(t, config, 14)
	for name, cfg := range config {
		require.Contains(t, cfg, "jit=off", name)
	}
	require.Contains(t, config["offer_units"], "plan_cache_mode=force_generic_plan")
}
