package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/migrations"
)

func (a *app) migrateCommand() *cobra.Command {
	var lockTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade pgseq's schema (apply does this too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := a.connect(cmd.Context(), "pgseq migrate")
			if err != nil {
				return err
			}
			defer pool.Close()
			applied, err := applier.Migrate(cmd.Context(), pool, a.schema, lockTimeout)
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintf(a.stdout, "Schema %q is up to date (version %d).\n", a.schema, migrations.Latest())
				return nil
			}
			fmt.Fprintf(a.stdout, "Migrated schema %q to version %d.\n", a.schema, applied[len(applied)-1])
			return nil
		},
	}
	lockTimeoutFlag(cmd, &lockTimeout, "how long to wait for any lock (the apply lock, a table a migration changes)")
	return cmd
}
