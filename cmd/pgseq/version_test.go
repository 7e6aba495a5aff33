package main

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
)

func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	yes, no := true, false
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want versionInfo
		text string
	}{
		{name: "no build information", bi: nil,
			want: versionInfo{Version: "dev"},
			text: "pgseq dev\n  revision      unknown (this build has no VCS information)\n"},
		{name: "go run from a checkout", bi: &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/pgseq/pgseq", Version: "(devel)"}},
			want: versionInfo{Version: "dev", GoVersion: "go1.26.1"},
			text: "pgseq dev\n  revision      unknown (this build has no VCS information)\n  go            go1.26.1 "},
		{name: "go install of a release", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}},
			want: versionInfo{Version: "v1.4.0", GoVersion: "go1.26.8"},
			text: "pgseq v1.4.0\n"},
		{name: "go build in a clean checkout", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.1-0.20260102150405-0123456789ab"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-01-02T15:04:05Z"}, {Key: "vcs.modified", Value: "false"}}},
			want: versionInfo{Version: "v1.4.1-0.20260102150405-0123456789ab", GoVersion: "go1.26.8", Revision: str("0123456789abcdef"), RevisionTime: str("2026-01-02T15:04:05Z"), Modified: &no},
			text: "  revision      0123456789abcdef (2026-01-02T15:04:05Z)\n"},
		{name: "go build with uncommitted changes", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20260102150405-0123456789ab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-01-02T15:04:05Z"}, {Key: "vcs.modified", Value: "true"}}},
			want: versionInfo{Version: "v0.0.0-20260102150405-0123456789ab+dirty", GoVersion: "go1.26.8", Revision: str("0123456789abcdef"), RevisionTime: str("2026-01-02T15:04:05Z"), Modified: &yes},
			text: "  revision      0123456789abcdef (2026-01-02T15:04:05Z, modified: built with uncommitted changes)\n"},
	}
	for _, tt := range tests {
		got := versionFrom(tt.bi)
		want := tt.want
		if want.GoVersion == "" {
			want.GoVersion = runtime.Version()
		}
		want.Platform = runtime.GOOS + "/" + runtime.GOARCH
		want.SchemaVersion = migrations.Latest()
		want.PlanFormatVersion = plan.FormatVersion
		require.Equal(t, want, got, tt.name)
		require.Contains(t, got.text(), tt.text, tt.name)
		require.True(t, strings.HasSuffix(got.text(), "  schema        version "+strconv.Itoa(migrations.Latest())+" (pgseq migrate brings the database to it)\n  plan format   "+plan.FormatVersion+"\n"), tt.name)
	}
}

// pgseq version, --version and version --json agree; the schema version is
// the one pgseq migrate brings a database to.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := runOffline("version")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, buildVersion().text(), r.stdout)
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		v := runOffline(args...)
		require.Equal(t, 0, v.code, v.stderr)
		require.Equal(t, r.stdout, v.stdout, "%v prints what version prints", args)
	}

	j := runOffline("version", "--json")
	require.Equal(t, 0, j.code, j.stderr)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &doc))
	require.ElementsMatch(t, []string{"version", "revision", "revision_time", "modified", "go_version", "platform", "schema_version", "plan_format_version"}, jsonKeys(doc))
	require.Equal(t, runtime.Version(), doc["go_version"])
	require.Equal(t, plan.FormatVersion, doc["plan_format_version"])
	require.True(t, strings.HasPrefix(r.stdout, "pgseq "+doc["version"].(string)+"\n"))

	r = c.run("migrate")
	require.Equal(t, 0, r.code, r.stderr)
	got, err := migrations.Version(context.Background(), c.Pool, c.Schema)
	require.NoError(t, err)
	require.Equal(t, float64(got), doc["schema_version"], "version names the schema version migrate reaches")

	require.Equal(t, exitError, runOffline("version", "extra").code)
}

func jsonKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
