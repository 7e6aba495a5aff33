package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/internal/localdb"
)

func (a *app) devCommand() *cobra.Command {
	dev := groupCommand(&cobra.Command{
		Use:   "dev",
		Short: "Manage the built-in local database",
		Long: `pgseq runs a local PostgreSQL server of its own (from the installed server
binaries, data in .pgseq/, unix socket only) whenever no database is
configured. These commands start, stop and describe it. Its .pgseq/ is the
nearest one above the working directory, up to the repository root (a
directory holding .git), as git finds its repository; without one, it is
created at the repository root (outside a repository, here). --local-dir
names another.`,
	})
	open := func() (*localdb.DB, error) {
		loc, err := a.localLocation(nil)
		if err != nil {
			return nil, err
		}
		return localdb.New(loc.Dir)
	}
	dev.AddCommand(
		&cobra.Command{
			Use:   "start",
			Short: "Start the local database (creating it on first use)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				loc, err := a.localLocation(nil)
				if err != nil {
					return err
				}
				db, err := localdb.New(loc.Dir)
				if err != nil {
					return err
				}
				if !loc.Exists {
					fmt.Fprintf(a.stderr, "pgseq: creating the built-in local database in %s\n", db.Dir())
				}
				url, err := db.Start(cmd.Context())
				if err != nil {
					return fmt.Errorf("starting the built-in local database: %w", err)
				}
				fmt.Fprintf(a.stdout, "The local database is running.\n  url: %s\n", url)
				return nil
			},
		},
		&cobra.Command{
			Use:   "stop",
			Short: "Stop the local database",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				db, err := open()
				if err != nil {
					return err
				}
				if err := db.Stop(cmd.Context()); err != nil {
					return fmt.Errorf("stopping the built-in local database: %w", err)
				}
				fmt.Fprintln(a.stdout, "The local database is stopped.")
				return nil
			},
		},
		&cobra.Command{
			Use:   "status",
			Short: "Say whether the local database is running, and where",
			Long: `Says whether the local database is running, and where its data, socket, log
and connection string are. Like pg_ctl status, the exit code is 0 when it is
running and 3 when it is not.

This is about the server; for the state of pgseq's queues, limits and
workers in a database, see pgseq status.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				db, err := open()
				if err != nil {
					return err
				}
				st, err := db.Status()
				if err != nil {
					return err
				}
				state := "stopped"
				if st.Running {
					state = fmt.Sprintf("running (pid %d)", st.PID)
				}
				fmt.Fprintf(a.stdout, "status:   %s\ndir:      %s\ndata:     %s\nsocket:   %s\nlog:      %s\nversion:  %s\nurl:      %s\n",
					state, st.Dir, st.DataDir, st.SocketDir, st.LogFile, orNone(st.Version), st.URL)
				if !st.Running {
					return &exitCode{code: exitNotRunning}
				}
				return nil
			},
		},
		&cobra.Command{
			Use:   "url",
			Short: "Print the local database's connection string",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				db, err := open()
				if err != nil {
					return err
				}
				fmt.Fprintln(a.stdout, db.URL())
				return nil
			},
		},
	)
	return dev
}

func orNone(s string) string {
	if s == "" {
		return "(not created yet)"
	}
	return s
}
