package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/reconcile"
)

func (a *app) applyCommand() *cobra.Command {
	var (
		autoApprove  bool
		compact      bool
		allowDestroy bool
		lockTimeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "apply [--auto-approve] [--allow-destroy] PATH... | [--allow-destroy] PLANFILE",
		Short: "Change the database to match the configuration",
		Long: `Plans the configuration, shows the plan, asks for "yes" on a terminal, then
applies it in one transaction under pgseq's apply lock. Without a terminal it
refuses unless --auto-approve is given.

With --auto-approve the plan is made under the apply lock, from the state
found there, shown, and applied: two applies at once run one after the other,
the second planned against what the first left. On a terminal the plan shown
is made first; once approved it is made again under the lock, and if it
differs (the database changed during the review) nothing is applied and the
differences are listed.

Given a single PLANFILE written by "pgseq plan --out" (a JSON document; any
other file is read as configuration), applies exactly that plan with no
prompt. It is refused (exit 1, database unchanged) when the file does not
match its checksum or is not a plan pgseq could have made, when it was made
against another database (the file records the cluster's system identifier
and the database name), or when the database changed since it was made.

Destructive changes (deleting a queue with unfinished tasks, deleting or
moving a counter) need --allow-destroy, for a PLANFILE too. pgseq's schema is
created or upgraded first when needed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := applier.Options{LockTimeout: lockTimeout, AllowDestroy: allowDestroy, Client: client(), Version: version()}

			if path, ok, err := savedPlanPath(args); err != nil {
				return err
			} else if ok {
				return a.applySaved(cmd, path, opts)
			}

			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			interactive := !autoApprove && isTerminal(a.stdin)
			if !autoApprove && !interactive {
				return errors.New("apply needs approval and standard input is not a terminal: pass --auto-approve, or save a plan with pgseq plan --out FILE and apply it with pgseq apply FILE")
			}
			pool, err := a.connect(ctx, "pgseq apply", args...)
			if err != nil {
				return err
			}
			defer pool.Close()
			// The plan is shown before it is applied: on a terminal, made
			// without the lock and then approved; with --auto-approve, made
			// under the apply lock.
			opts.Review = func(p *plan.Plan) error { return renderPlan(a.stdout, p, compact) }
			var approve reconcile.Approve
			if interactive {
				approve = func(*plan.Plan) (bool, error) { return a.confirm() }
			}
			res, err := reconcile.PlanAndApply(ctx, pool, a.schema, cfg.State(), opts, approve)
			var applyErr *reconcile.ApplyError
			switch {
			case errors.As(err, &applyErr):
				return a.applied(nil, a.counterDiagnostics(err, cfg), false)
			case errors.Is(err, reconcile.ErrNotApproved):
				fmt.Fprintln(a.stdout, "\nApply cancelled; nothing was changed.")
				return &exitCode{code: exitError}
			case err != nil:
				// Planning, showing or approving the plan failed, or the
				// plan is destructive without --allow-destroy.
				return a.counterDiagnostics(err, cfg)
			}
			return a.applied(res, nil, false)
		},
	}
	cmd.Flags().BoolVar(&autoApprove, "auto-approve", false, "apply without asking for confirmation")
	compactFlag(cmd, &compact)
	cmd.Flags().BoolVar(&allowDestroy, "allow-destroy", false, "allow destructive changes (deleting a queue with unfinished tasks, deleting or moving a counter), also those of a PLANFILE")
	lockTimeoutFlag(cmd, &lockTimeout, "how long to wait for any lock (the apply lock, slot rows, a counter's table)")
	return cmd
}

// applySaved applies the saved plan at path.
func (a *app) applySaved(cmd *cobra.Command, path string, opts applier.Options) error {
	p, err := readPlanFile(path)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("schema") && p.Schema != a.schema {
		return fmt.Errorf("plan file %s was made for schema %q, not %q", path, p.Schema, a.schema)
	}
	if err := validSchema(p.Schema); err != nil {
		return fmt.Errorf("plan file %s: %w", path, err)
	}
	a.schema = p.Schema
	pool, err := a.connect(cmd.Context(), "pgseq apply", path)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := reconcile.Apply(cmd.Context(), pool, p, opts)
	return a.applied(res, err, true)
}

// applied reports the outcome of an apply. The plan was shown already,
// except for a saved plan (saved), whose empty plan is reported here.
func (a *app) applied(res *applier.Result, err error, saved bool) error {
	if errors.Is(err, errReported) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (nothing was applied)", err)
	}
	if res.Plan.Empty() {
		if saved {
			fmt.Fprintln(a.stdout, "No changes. The database matches the configuration.")
		}
		if res.HistoryID != 0 {
			fmt.Fprintln(a.stdout, "\nRecorded the database as it is: the changes made outside pgseq are no longer reported.")
		}
		return nil
	}
	if len(res.Migrated) > 0 {
		fmt.Fprintf(a.stdout, "\nMigrated schema %q to version %d.\n", res.Plan.Schema, res.Migrated[len(res.Migrated)-1])
	}
	fmt.Fprintf(a.stdout, "\nApply complete! %d added, %d changed, %d destroyed.\n",
		res.Summary.Add, res.Summary.Change, res.Summary.Destroy)
	return nil
}

// confirm asks for "yes" on the terminal.
func (a *app) confirm() (bool, error) {
	fmt.Fprint(a.stdout, "\nDo you want to perform these actions?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, fmt.Errorf("reading the answer: %w", err)
	}
	return strings.TrimSpace(line) == "yes", nil
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// readPlanFile reads and checks the saved plan at path (plan.Read).
func readPlanFile(path string) (*plan.Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan file: %w", err)
	}
	defer f.Close()
	p, err := plan.Read(f)
	if err != nil {
		return nil, fmt.Errorf("plan file %s: %w", path, err)
	}
	return p, nil
}
