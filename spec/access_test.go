package spec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

func TestAccessBlock(t *testing.T) {
	t.Parallel()
	cfg, diags := Load("testdata/valid/access.hcl")
	require.Empty(t, diags, diags.Error())
	want := []catalog.Grant{
		{Level: "counters", Role: "app_web"},
		{Level: "enqueue", Role: "App-Admin"},
		{Level: "enqueue", Role: "app_web"},
		{Level: "read", Role: "app_worker"},
		{Level: "read", Role: "grafana"},
		{Level: "work", Role: "app_worker"},
	}
	require.Equal(t, want, cfg.State().Access)

	// Each role points at where it is first named.
	require.Len(t, cfg.Roles, 4)
	at := cfg.Roles["app_worker"]
	require.Equal(t, 8, at.Start.Line)
	require.Equal(t, 15, at.Start.Column)
	diag := cfg.AccessDiag("app_worker", "Unknown role", "It does not exist.")
	require.Equal(t, &at, diag.Subject)
	require.Nil(t, cfg.AccessDiag("nobody", "Unknown role", "").Subject)

	// Written back as one block, levels in the order of catalog.Levels.
	s := cfg.State()
	s.Queues, s.TaskTypes = nil, nil
	require.Equal(t, `access {
  enqueue  = ["App-Admin", "app_web"]
  work     = ["app_worker"]
  counters = ["app_web"]
  read     = ["app_worker", "grafana"]
}
`, string(WriteHCL(s)))
}

func TestAccessRoundTrip(t *testing.T) {
	t.Parallel()
	for _, access := range [][]catalog.Grant{
		nil,
		{{Level: "read", Role: "grafana"}},
		{{Level: "counters", Role: "a"}, {Level: "enqueue", Role: "a"}, {Level: "read", Role: "_b$1"}, {Level: "work", Role: "a"}},
	} {
		want := catalog.State{Queues: []catalog.Queue{catalog.DefaultQueue("default")}, TaskTypes: []catalog.TaskType{}, Access: access}
		src := WriteHCL(want)
		cfg, diags := Parse(map[string][]byte{"state.hcl": src})
		require.Empty(t, diags, "%s\n%s", diags.Error(), src)
		require.Equal(t, want, cfg.State(), "%s", src)
	}
}

func TestAccessEmptyListsGrantNothing(t *testing.T) {
	t.Parallel()
	cfg, diags := Parse(map[string][]byte{"a.hcl": []byte("queue \"default\" {}\naccess {\n  work = []\n  read = null\n}\n")})
	require.Empty(t, diags, diags.Error())
	require.Nil(t, cfg.State().Access)
}

func TestRoleNames(t *testing.T) {
	t.Parallel()
	for name, valid := range map[string]bool{
		"app_worker": true, "App-Admin": true, "_x$1": true, "a": true,
		"": false, "1app": false, "app worker": false, "app.worker": false, "pg_monitor": false,
		"public": false, "PUBLIC": false, "päpp": false, string(make([]byte, 64)): false,
		"a23456789012345678901234567890123456789012345678901234567890123":  true,
		"a234567890123456789012345678901234567890123456789012345678901234": false,
	} {
		require.Equal(t, valid, catalog.ValidRoleName(name), "%q", name)
	}
}
