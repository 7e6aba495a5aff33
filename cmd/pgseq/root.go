package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/localdb"
	"github.com/pgseq/pgseq/migrations"
)

// Exit codes.
const (
	exitOK      = 0
	exitError   = 1
	exitChanges = 2 // plan --detailed-exitcode: changes present
	exitFormat  = 3 // fmt --check: a file would change
)

// exitCode is an error that carries the process exit code. A nil err with a
// code means "exit quietly with this code".
type exitCode struct {
	code int
	err  error
}

func (e *exitCode) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// reported is an error already printed (for example HCL diagnostics).
var reported = errors.New("reported")

// app holds global options and the standard streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	databaseURL string
	schema      string
	localDir    string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ec *exitCode
	if errors.As(err, &ec) {
		if ec.err != nil && !errors.Is(ec.err, reported) {
			fmt.Fprintf(stderr, "Error: %s\n", dbconn.Redact(ec.err.Error()))
		}
		return ec.code
	}
	if !errors.Is(err, reported) {
		fmt.Fprintf(stderr, "Error: %s\n", dbconn.Redact(err.Error()))
	}
	return exitError
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "pgseq",
		Short: "Plan and apply PostgreSQL queues, concurrency limits and counters declared in HCL",
		Long: `pgseq keeps PostgreSQL's sequencing and concurrency machinery — job queue
settings, per-task-type concurrency limits, gapless counters — declared in HCL,
planned and applied like Terraform.

With no database configured (--database-url, PGSEQ_DATABASE_URL, DATABASE_URL
or the PG* variables), pgseq uses a local database it manages in .pgseq/.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return validSchema(a.schema)
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	pf.StringVar(&a.databaseURL, "database-url", "", "PostgreSQL connection string (default: $PGSEQ_DATABASE_URL, $DATABASE_URL, PG* variables, else the built-in local database)")
	pf.StringVar(&a.schema, "schema", migrations.DefaultSchema, "the schema pgseq manages")
	pf.StringVar(&a.localDir, "local-dir", ".pgseq", "directory of the built-in local database")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	})
	root.AddCommand(
		a.validateCommand(),
		a.fmtCommand(),
		a.planCommand(),
		a.applyCommand(),
		a.inspectCommand(),
		a.migrateCommand(),
		a.devCommand(),
		a.workerCommand(),
		a.benchCommand(),
	)
	return root
}

var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

func validSchema(s string) error {
	if !schemaRE.MatchString(s) {
		return fmt.Errorf("invalid --schema %q: use lowercase letters, digits and _, starting with a letter or _, at most 63 characters", s)
	}
	return nil
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// client names the person or job running pgseq, for the apply history.
func client() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// connect resolves the connection (starting the built-in local database
// when nothing is configured) and returns a pool.
func (a *app) connect(ctx context.Context, appName string) (*pgxpool.Pool, error) {
	src, err := dbconn.Resolve(a.databaseURL, os.Getenv)
	if err != nil {
		return nil, err
	}
	conn := src.ConnString
	if src.Local {
		db, err := localdb.New(a.localDir)
		if err != nil {
			return nil, err
		}
		conn, err = db.Start(ctx)
		if err != nil {
			return nil, fmt.Errorf("starting the built-in local database: %w", err)
		}
		fmt.Fprintf(a.stderr, "pgseq: no database configured; using the built-in local database in %s (pgseq dev stop stops it)\n", a.localDir)
	}
	return dbconn.Connect(ctx, conn, appName)
}

// lockTimeoutFlag registers --lock-timeout on cmd.
func lockTimeoutFlag(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "lock-timeout", applier.DefaultLockTimeout, "how long to wait for any lock (the apply lock, slot rows) before giving up")
}
