package migrations_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// After an outage longer than worker_timeout (simulated: every heartbeat and
// the runtime's last contact ten minutes old), a maintenance caller that
// reaches the database first, here plain SQL, declares no live worker dead
// and recovers none of their tasks; a worker that stays silent is declared
// dead once worker_timeout has passed since contact returned.
func TestOutageDeclaresNoLiveWorkerDead(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("long", 0))) // worker_timeout 1s
	r.register("alive")
	r.register("gone")
	r.enqueueN("long", 2)
	_, err := claim(bg, r.Pool, r.Schema, "q", "alive", 1)
	require.NoError(t, err)
	_, err = claim(bg, r.Pool, r.Schema, "q", "gone", 1)
	require.NoError(t, err)

	// The outage: nobody reached the database for ten minutes.
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '10 minutes'`)
	r.Exec(`UPDATE {{schema}}.runtime_clock SET contact_at = now() - interval '10 minutes', judged_from = '-infinity'`)

	// Contact returns: a new worker is elected leader and runs maintenance at once.
	r.register("leader")
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)
	var report map[string]any
	r.Scalar(&report, `SELECT {{schema}}.run_maintenance('leader')`)
	require.EqualValues(t, 0, report["recovered"], "tasks recovered for the outage: %v", report)
	require.EqualValues(t, 0, report["workers_declared_dead"], "workers declared dead for the outage: %v", report)
	require.Equal(t, 2, r.running("long"))

	// "alive" heartbeats again; "gone" never does. Once worker_timeout has
	// passed since contact returned (moved back here instead of waited
	// for), "gone" is declared dead and its task recovered, "alive" not.
	var beat bool
	r.Scalar(&beat, `SELECT {{schema}}.heartbeat('alive')`)
	require.True(t, beat)
	r.Exec(`UPDATE {{schema}}.runtime_clock SET judged_from = now() - interval '2 seconds'`)
	r.Scalar(&report, `SELECT {{schema}}.run_maintenance('leader')`)
	require.EqualValues(t, 1, report["recovered"], "%v", report)
	require.EqualValues(t, 1, report["workers_declared_dead"], "%v", report)
	var dead []string
	r.Scalar(&dead, `SELECT array_agg(id ORDER BY id) FROM {{schema}}.workers WHERE dead_at IS NOT NULL`)
	require.Equal(t, []string{"gone"}, dead)
}

// While workers heartbeat, no gap is seen: a worker silent for longer than
// worker_timeout is declared dead at the next maintenance, as before.
func TestSilentWorkerIsDeclaredDeadWithoutAnOutage(t *testing.T) {
	t.Parallel()
	r := newRT(t, state(queueCfg("q"), task("short", 0)))
	r.register("leader")
	r.register("silent")
	r.enqueueN("short", 1)
	_, err := claim(bg, r.Pool, r.Schema, "q", "silent", 1)
	require.NoError(t, err)
	var ok bool
	r.Scalar(&ok, `SELECT {{schema}}.elect_leader('leader')`)
	require.True(t, ok)
	// Contact went on (the leader heartbeat), and the clock of the server
	// start and of the last gap are long past.
	r.Exec(`UPDATE {{schema}}.workers SET last_heartbeat = now() - interval '1 minute' WHERE id = 'silent'`)
	r.contactWentOn()
	var report map[string]any
	r.Scalar(&report, `SELECT {{schema}}.run_maintenance('leader')`)
	require.EqualValues(t, 1, report["recovered"], "%v", report)
	require.EqualValues(t, 1, report["workers_declared_dead"], "%v", report)
}
