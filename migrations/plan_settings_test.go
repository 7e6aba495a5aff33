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

	// claim_open keeps its generic plan (migration 031: it was planned
	// again at every claim); admit_keys chooses per call (its step 0) and
	// restores the caller's setting.
	var claimOpen, admitKeys string
	r.Scalar(&claimOpen, `SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE pronamespace = $1::regnamespace AND proname = 'claim_open'`, r.Schema)
	r.Scalar(&admitKeys, `SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE pronamespace = $1::regnamespace AND proname = 'admit_keys'`, r.Schema)
	require.Contains(t, claimOpen, "plan_cache_mode=force_generic_plan")
	require.Contains(t, admitKeys, "plan_cache_mode=auto")
}
