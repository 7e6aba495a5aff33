package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/render"
)

func (a *app) planCommand() *cobra.Command {
	var (
		out              string
		asJSON           bool
		detailedExitCode bool
	)
	cmd := &cobra.Command{
		Use:   "plan [--out FILE] [--json] [--detailed-exitcode] PATH...",
		Short: "Show what apply would change in the database",
		Long: `Compares the configuration with the database and shows the changes apply
would make, with live usage (running tasks, unfinished tasks) beside them.
Nothing is written to the database.

  --out FILE            save the plan; "pgseq apply FILE" applies exactly it, and
                        refuses it if the database changed in the meantime
  --json                print the plan as a JSON document (see README)
  --detailed-exitcode   exit 0 when there are no changes, 2 when there are,
                        1 on error`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			pool, err := a.connect(cmd.Context(), "pgseq plan")
			if err != nil {
				return err
			}
			defer pool.Close()
			p, err := a.makePlan(cmd.Context(), pool, cfg)
			if err != nil {
				return err
			}
			if asJSON {
				if err := p.Write(a.stdout); err != nil {
					return err
				}
			} else if err := render.Plan(a.stdout, p); err != nil {
				return err
			}
			if out != "" {
				if err := writePlanFile(out, p); err != nil {
					return err
				}
				if !asJSON {
					fmt.Fprintf(a.stdout, "\nSaved the plan to %s. To apply exactly this plan: pgseq apply %s\n", out, out)
				}
			}
			if detailedExitCode && !p.Empty() {
				return &exitCode{code: exitChanges}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the plan to FILE for a later pgseq apply FILE")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON")
	cmd.Flags().BoolVar(&detailedExitCode, "detailed-exitcode", false, "exit 2 when the plan has changes, 0 when it has none")
	return cmd
}

func writePlanFile(path string, p interface{ Write(w io.Writer) error }) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pgseq-plan-*")
	if err != nil {
		return fmt.Errorf("saving the plan: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := p.Write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the plan: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the plan: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving the plan: %w", err)
	}
	return nil
}
