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
	"github.com/pgseq/pgseq/render"
)

func (a *app) applyCommand() *cobra.Command {
	var (
		autoApprove  bool
		allowDestroy bool
		lockTimeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "apply [--auto-approve] [--allow-destroy] PATH... | PLANFILE",
		Short: "Change the database to match the configuration",
		Long: `Plans the configuration, shows the plan, asks for "yes" on a terminal, then
applies it in one transaction under pgseq's apply lock. Without a terminal it
refuses unless --auto-approve is given.

Given a single PLANFILE written by "pgseq plan --out", applies exactly that
plan with no prompt, and refuses it (exit 1, database unchanged) when the
database changed since it was made.

Destructive changes (deleting a queue with unfinished tasks) need
--allow-destroy. pgseq's schema is created or upgraded first when needed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := applier.Options{LockTimeout: lockTimeout, AllowDestroy: allowDestroy, Client: client(), Version: version()}

			if planFile, ok := isPlanFile(args); ok {
				p, err := readPlanFile(planFile)
				if err != nil {
					return err
				}
				if cmd.Flags().Changed("schema") && p.Schema != a.schema {
					return fmt.Errorf("plan file %s was made for schema %q, not %q", planFile, p.Schema, a.schema)
				}
				a.schema = p.Schema
				pool, err := a.connect(ctx, "pgseq apply")
				if err != nil {
					return err
				}
				defer pool.Close()
				return a.apply(cmd, pool, p, opts)
			}

			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			interactive := !autoApprove && isTerminal(a.stdin)
			if !autoApprove && !interactive {
				return errors.New("apply needs approval and standard input is not a terminal: pass --auto-approve, or save a plan with pgseq plan --out FILE and apply it with pgseq apply FILE")
			}
			pool, err := a.connect(ctx, "pgseq apply")
			if err != nil {
				return err
			}
			defer pool.Close()
			p, err := a.makePlan(ctx, pool, cfg)
			if err != nil {
				return err
			}
			if err := render.Plan(a.stdout, p); err != nil {
				return err
			}
			if p.Empty() {
				return nil
			}
			if !allowDestroy {
				for _, c := range p.Changes {
					if c.Destructive {
						return fmt.Errorf("%s: %s; nothing was applied. Re-run with --allow-destroy to do it anyway",
							c.Address, strings.Join(c.Reasons, "; "))
					}
				}
			}
			if interactive {
				ok, err := a.confirm()
				if err != nil {
					return err
				}
				if !ok {
					fmt.Fprintln(a.stdout, "\nApply cancelled; nothing was changed.")
					return &exitCode{code: exitError}
				}
			}
			return a.apply(cmd, pool, p, opts)
		},
	}
	cmd.Flags().BoolVar(&autoApprove, "auto-approve", false, "apply without asking for confirmation")
	cmd.Flags().BoolVar(&allowDestroy, "allow-destroy", false, "allow destructive changes (deleting a queue with unfinished tasks)")
	lockTimeoutFlag(cmd, &lockTimeout)
	return cmd
}

func (a *app) apply(cmd *cobra.Command, pool applier.DB, p *plan.Plan, opts applier.Options) error {
	res, err := applier.Apply(cmd.Context(), pool, p, opts)
	if err != nil {
		return fmt.Errorf("%w (nothing was applied)", err)
	}
	if p.Empty() {
		fmt.Fprintln(a.stdout, "No changes. The database matches the configuration.")
		return nil
	}
	if len(res.Migrated) > 0 {
		fmt.Fprintf(a.stdout, "\nMigrated schema %q to version %d.\n", p.Schema, res.Migrated[len(res.Migrated)-1])
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

// isPlanFile reports whether args name a single saved plan: one regular
// file that is not an .hcl file.
func isPlanFile(args []string) (string, bool) {
	if len(args) != 1 || strings.HasSuffix(args[0], ".hcl") {
		return "", false
	}
	st, err := os.Stat(args[0])
	if err != nil || st.IsDir() {
		return "", false
	}
	return args[0], true
}

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
