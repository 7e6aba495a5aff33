package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/spec"
)

func (a *app) fmtCommand() *cobra.Command {
	var check, showDiff bool
	cmd := &cobra.Command{
		Use:   "fmt [--check] [--diff] PATH...",
		Short: "Rewrite configuration files in canonical format",
		Long: `Rewrites HCL files (or the *.hcl files of directories) in canonical format and
lists the files it changed.

  --check   write nothing: list the files that would change, and exit 3 if
            there are any
  --diff    write nothing: print a unified diff of what would change (3 lines
            of context; for files named by relative paths "patch -p0"
            applies it), and exit 3 if anything would; with --check too it
            does the same (the diff names the files). On a terminal the
            diff is coloured, unless NO_COLOR is set`,
		Example: `  pgseq fmt config/
  pgseq fmt --check config/           # in CI: exit 3 when a file is not formatted
  pgseq fmt --diff config/ > fmt.patch`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// --diff reports like --check: nothing is written.
			dryRun := check || showDiff
			var diffs strings.Builder
			files, err := hclFiles(args)
			if err != nil {
				return err
			}
			var changed []string
			var diags hcl.Diagnostics
			// sources holds the files with errors, for the diagnostics'
			// source lines.
			sources := map[string]*hcl.File{}
			for _, f := range files {
				src, err := spec.ReadFile(f)
				if err != nil {
					return fmt.Errorf("reading %s: %w", f, err)
				}
				out, d := spec.Format(src, f)
				if d.HasErrors() {
					diags = append(diags, d...)
					sources[f] = &hcl.File{Bytes: src}
					continue
				}
				if bytes.Equal(src, out) {
					continue
				}
				changed = append(changed, f)
				if showDiff {
					diffs.WriteString(unifiedDiff(f+"\t(original)", f+"\t(formatted)", src, out))
				}
				if !dryRun {
					if err := writeFileKeepMode(f, out); err != nil {
						return err
					}
				}
			}
			if showDiff {
				d := diffs.String()
				if colorOutput(a.stdout) {
					d = colorDiff(d)
				}
				fmt.Fprint(a.stdout, d)
			} else {
				for _, f := range changed {
					fmt.Fprintln(a.stdout, f)
				}
			}
			if diags.HasErrors() {
				if err := spec.WriteDiagnostics(a.stderr, diags, sources); err != nil {
					return err
				}
				return errReported
			}
			if dryRun && len(changed) > 0 {
				fmt.Fprintf(a.stderr, "%s not in canonical format; run pgseq fmt to fix\n", textfmt.Plural(len(changed), "file"))
				return &exitCode{code: exitFormat}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "list files that are not formatted and exit 3 if any, without writing")
	cmd.Flags().BoolVar(&showDiff, "diff", false, "print a unified diff of the changes and exit 3 if any, without writing")
	return cmd
}

// hclFiles expands paths: files as given, directories to their *.hcl files.
func hclFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.hcl"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no .hcl files in directory", p)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}

func writeFileKeepMode(path string, b []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, st.Mode().Perm()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
