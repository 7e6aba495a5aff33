package main

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/spec"
)

func (a *app) validateCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [--json] PATH...",
		Short: "Check configuration files without touching a database",
		Long: `Parses and validates HCL files (a file, or a directory of *.hcl files; all
paths together form one configuration). Errors are printed as file:line:col
with the offending source line. Exit code 1 when the configuration is invalid.

  --json   print the diagnostics as one JSON document on stdout, for CI
           annotations: {"valid", "error_count", "warning_count",
           "diagnostics": [{"severity", "summary", "detail", "filename",
           "start": {"line", "column", "byte"}, "end": {…}}]} (docs/cli.md);
           the exit code is the same`,
		Example: `  pgseq validate config/
  pgseq validate --json config/ | jq -r '.diagnostics[] | "\(.filename):\(.start.line): \(.summary)"'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return a.validateJSON(args)
			}
			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			s := cfg.State()
			fmt.Fprintf(a.stdout, "The configuration is valid: %s, %s, %s.\n",
				textfmt.Plural(len(s.Queues), "queue"), textfmt.Plural(len(s.TaskTypes), "task type"), textfmt.Plural(len(s.Counters), "counter"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the diagnostics as JSON")
	return cmd
}

// validation is the document validate --json prints.
type validation struct {
	// Valid is false when there is an error (warnings do not count).
	Valid        bool `json:"valid"`
	ErrorCount   int  `json:"error_count"`
	WarningCount int  `json:"warning_count"`
	// Diagnostics are in the order validate prints them: by file and
	// position. Never null.
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
}

// jsonDiagnostic is one diagnostic. Filename, Start and End are null for a
// diagnostic about the configuration as a whole (a path that does not
// exist, a configuration that declares nothing).
type jsonDiagnostic struct {
	Severity string   `json:"severity"` // "error" or "warning"
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail"`
	Filename *string  `json:"filename"`
	Start    *jsonPos `json:"start"`
	End      *jsonPos `json:"end"`
}

// jsonPos is a position in a file: line and column from 1 (the column
// counts characters), byte the offset from 0.
type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// validateJSON prints the diagnostics of the configuration at paths as a
// validation document; errors make it exit 1, already reported.
func (a *app) validateJSON(paths []string) error {
	_, diags := spec.Load(paths...)
	v := diagnosticsDocument(diags)
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if !v.Valid {
		return errReported
	}
	return nil
}

func diagnosticsDocument(diags hcl.Diagnostics) validation {
	v := validation{Diagnostics: []jsonDiagnostic{}}
	for _, d := range diags {
		jd := jsonDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
			v.WarningCount++
		} else {
			v.ErrorCount++
		}
		if s := d.Subject; s != nil {
			name := s.Filename
			jd.Filename = &name
			jd.Start = &jsonPos{s.Start.Line, s.Start.Column, s.Start.Byte}
			jd.End = &jsonPos{s.End.Line, s.End.Column, s.End.Byte}
		}
		v.Diagnostics = append(v.Diagnostics, jd)
	}
	v.Valid = v.ErrorCount == 0
	return v
}
