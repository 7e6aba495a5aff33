package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/migrations"
	"github.com/pgseq/pgseq/plan"
)

func (a *app) versionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print pgseq's version, the source revision and the schema version it migrates to",
		Long: `Prints the version of this pgseq build: the module version ("dev" when built
from a checkout without a version), the VCS revision it was built from, with
the commit time and whether the working tree had uncommitted changes
("modified"), the Go version and platform, the pgseq schema version it
creates or upgrades the database to (the newest of its migrations), and the
saved-plan format it writes. No database is needed. "pgseq --version" prints
the same.

  --json   print it as one JSON document: {"version", "revision",
           "revision_time", "modified", "go_version", "platform",
           "schema_version", "plan_format_version"}; revision,
           revision_time and modified are null when the build has no VCS
           information (go run, go test, a build outside a checkout)`,
		Example: `  pgseq version
  pgseq version --json | jq .schema_version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildVersion()
			if !asJSON {
				_, err := fmt.Fprint(a.stdout, v.text())
				return err
			}
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(v)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON")
	return cmd
}

// versionInfo is what pgseq version prints.
type versionInfo struct {
	// Version is the module version, or "dev" (version()).
	Version string `json:"version"`
	// Revision, RevisionTime and Modified are the VCS revision the binary
	// was built from, its commit time (RFC 3339) and whether the work tree
	// had changes; nil when the build has no VCS information.
	Revision     *string `json:"revision"`
	RevisionTime *string `json:"revision_time"`
	Modified     *bool   `json:"modified"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"go_version"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
	// SchemaVersion is the newest migration: the schema version pgseq
	// migrate (and apply) bring the database to.
	SchemaVersion int `json:"schema_version"`
	// PlanFormatVersion is the version of the saved-plan document it writes.
	PlanFormatVersion string `json:"plan_format_version"`
}

func buildVersion() versionInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionFrom(bi)
}

// versionFrom makes the version from build information (nil: none).
func versionFrom(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{
		Version:           "dev",
		GoVersion:         runtime.Version(),
		Platform:          runtime.GOOS + "/" + runtime.GOARCH,
		SchemaVersion:     migrations.Latest(),
		PlanFormatVersion: plan.FormatVersion,
	}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		val := s.Value
		switch s.Key {
		case "vcs.revision":
			v.Revision = &val
		case "vcs.time":
			v.RevisionTime = &val
		case "vcs.modified":
			if m, err := strconv.ParseBool(val); err == nil {
				v.Modified = &m
			}
		}
	}
	return v
}

// text is the human form of v, which pgseq version and pgseq --version
// print.
func (v versionInfo) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pgseq %s\n", v.Version)
	rev := "unknown (this build has no VCS information)"
	if v.Revision != nil {
		rev = *v.Revision
		var notes []string
		if v.RevisionTime != nil {
			notes = append(notes, *v.RevisionTime)
		}
		if v.Modified != nil && *v.Modified {
			notes = append(notes, "modified: built with uncommitted changes")
		}
		if len(notes) > 0 {
			rev += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	fmt.Fprintf(&b, "  revision      %s\n", rev)
	fmt.Fprintf(&b, "  go            %s %s\n", v.GoVersion, v.Platform)
	fmt.Fprintf(&b, "  schema        version %d (pgseq migrate brings the database to it)\n", v.SchemaVersion)
	fmt.Fprintf(&b, "  plan format   %s\n", v.PlanFormatVersion)
	return b.String()
}

// versionTemplate is the root command's version template: the text of
// pgseq version, so that pgseq --version prints the same. It is a template
// of one string constant, so nothing in the text is read as a template.
func versionTemplate() string {
	return "{{" + strconv.Quote(buildVersion().text()) + "}}"
}
