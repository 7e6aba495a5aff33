package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/render"
)

func (a *app) validateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check configuration files without touching a database",
		Long: `Parses and validates HCL files (a file, or a directory of *.hcl files; all
paths together form one configuration). Errors are printed as file:line:col
with the offending source line. Exit code 1 when the configuration is invalid.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig(args)
			if err != nil {
				return err
			}
			s := cfg.State()
			fmt.Fprintf(a.stdout, "The configuration is valid: %s, %s, %s.\n",
				render.Plural(len(s.Queues), "queue"), render.Plural(len(s.TaskTypes), "task type"), render.Plural(len(s.Counters), "counter"))
			return nil
		},
	}
}
