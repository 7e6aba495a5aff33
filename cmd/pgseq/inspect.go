package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/spec"
)

func (a *app) inspectCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "inspect",
		Short: "Print the live configuration as HCL",
		Long: `Reads the queues, task types (with their concurrency limits), counters and
the access block (the roles pgseq granted) from the database and prints them
as HCL. Applying that output to the same database gives an empty plan.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := a.connect(cmd.Context(), "pgseq inspect")
			if err != nil {
				return err
			}
			defer pool.Close()
			s, version, err := inspect.Read(cmd.Context(), pool, a.schema)
			if err != nil {
				return fmt.Errorf("reading the database state: %w", err)
			}
			if version == 0 {
				fmt.Fprintf(a.stderr, "pgseq: schema %q has no pgseq objects yet (run pgseq apply)\n", a.schema)
			}
			_, err = a.stdout.Write(spec.WriteHCL(s))
			return err
		},
	}
}
