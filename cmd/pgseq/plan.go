package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/render"
)

func (a *app) planCommand() *cobra.Command {
	var (
		out              string
		asJSON           bool
		detailedExitCode bool
		compact          bool
		lockTimeout      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "plan [--out FILE] [--json] [--detailed-exitcode] [--lock-timeout 5s] PATH...",
		Short: "Show what apply would change in the database",
		Long: `Compares the configuration with the database and shows the changes apply
would make, with live usage (running tasks, unfinished tasks) beside them.
Objects changed outside pgseq since the last apply (a slot group's capacity
edited by hand, a queue setting changed, a counter's trigger dropped) are
listed first, apart from the changes, under "Objects have changed outside
of pgseq"; they are information: apply brings the database back to the
configuration all the same. Nothing is written to the database.

  --out FILE            save the plan; "pgseq apply FILE" applies exactly it (with
                        --allow-destroy if it has destructive changes), and
                        refuses it if the database changed in the meantime or
                        the file was altered (it carries a checksum)
  --json                print the plan as a JSON document (docs/plan-json.md)
  --detailed-exitcode   exit 0 when there are no changes, 2 when there are,
                        1 on error
  --compact             one line per change instead of a block (CI logs,
                        plans of thousands of changes); a plan of more than
                        50 changes says its summary first either way
  --lock-timeout 5s     how long to wait for a lock another session holds
                        on a table plan reads (a counter's table locked by a
                        migration); on timeout plan fails and names who
                        holds it`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if path, ok, err := savedPlanPath(args); err != nil {
				return err
			} else if ok {
				return fmt.Errorf("%s is a saved plan (a JSON document), not a configuration: apply it with pgseq apply %s; pgseq plan reads .hcl files or a directory of them", path, path)
			}
			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			pool, err := a.connect(cmd.Context(), "pgseq plan", args...)
			if err != nil {
				return err
			}
			defer pool.Close()
			p, err := reconcile.PlanWithin(cmd.Context(), pool, a.schema, cfg.State(), lockTimeout)
			if err != nil {
				return a.counterDiagnostics(err, cfg)
			}
			if asJSON {
				if err := p.Write(a.stdout); err != nil {
					return err
				}
			} else if err := renderPlan(a.stdout, p, compact); err != nil {
				return err
			}
			if out != "" {
				if err := writePlanFile(out, p); err != nil {
					return err
				}
				if !asJSON {
					fmt.Fprintf(a.stdout, "\n%s\n", applyHint(out, p))
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
	compactFlag(cmd, &compact)
	lockTimeoutFlag(cmd, &lockTimeout, "how long to wait for a lock on a table plan reads (a counter's table)")
	return cmd
}

// applyHint tells how to apply the plan saved to path: with --allow-destroy
// when it has destructive changes, which apply refuses without it.
func applyHint(path string, p *plan.Plan) string {
	for _, c := range p.Changes {
		if c.Destructive {
			return fmt.Sprintf("Saved the plan to %s. It has destructive changes, which need --allow-destroy. To apply exactly this plan: pgseq apply --allow-destroy %s", path, path)
		}
	}
	return fmt.Sprintf("Saved the plan to %s. To apply exactly this plan: pgseq apply %s", path, path)
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

// compactFlag adds --compact to a command that shows a plan.
func compactFlag(cmd *cobra.Command, compact *bool) {
	cmd.Flags().BoolVar(compact, "compact", false, "show one line per change instead of a block (CI logs, plans of thousands of changes)")
}

// renderPlan writes the human view of p: one block per change, or one line
// with compact.
func renderPlan(w io.Writer, p *plan.Plan, compact bool) error {
	if compact {
		return render.PlanCompact(w, p)
	}
	return render.Plan(w, p)
}
