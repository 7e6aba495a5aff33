package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
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
	// exitNotRunning is dev status's code when the local database is not
	// running, as pg_ctl status has it.
	exitNotRunning = 3
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

// errReported is an error already printed (for example HCL diagnostics).
var errReported = errors.New("reported")

// app holds global options and the standard streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// args are the command-line arguments, for explaining a bad flag.
	args []string

	databaseURL string
	schema      string
	localDir    string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, args: args}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Ctrl-C or SIGTERM: say so, not "context canceled".
		fmt.Fprintln(stderr, "Error: interrupted; nothing was applied (the transaction in progress, if any, was rolled back)")
		return exitError
	}
	var ec *exitCode
	if errors.As(err, &ec) {
		if ec.err != nil && !errors.Is(ec.err, errReported) {
			fmt.Fprintf(stderr, "Error: %s\n", dbconn.Redact(ec.err.Error()))
		}
		return ec.code
	}
	if !errors.Is(err, errReported) {
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
	// pgseq's own completion command (completion.go) replaces cobra's.
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetVersionTemplate(versionTemplate())
	pf := root.PersistentFlags()
	pf.StringVar(&a.databaseURL, "database-url", "", "PostgreSQL connection string (default: $PGSEQ_DATABASE_URL, $DATABASE_URL, PG* variables, else the built-in local database)")
	pf.StringVar(&a.schema, "schema", migrations.DefaultSchema, "the schema pgseq manages (not information_schema or a pg_ name, which PostgreSQL reserves)")
	pf.StringVar(&a.localDir, "local-dir", defaultLocalDir, "directory of the built-in local database")
	root.SetFlagErrorFunc(a.flagError)
	root.AddCommand(
		a.validateCommand(),
		a.fmtCommand(),
		a.planCommand(),
		a.showCommand(),
		a.applyCommand(),
		a.inspectCommand(),
		a.statusCommand(),
		a.migrateCommand(),
		a.devCommand(),
		a.workerCommand(),
		a.benchCommand(),
		a.versionCommand(),
		a.completionCommand(),
	)
	return root
}

// validSchema checks a --schema name: an identifier that needs no quotes,
// and not one of PostgreSQL's own schemas (information_schema, and the
// names starting with pg_, which PostgreSQL reserves).
func validSchema(s string) error {
	if catalog.SystemSchema(s) {
		return fmt.Errorf("invalid --schema %q: information_schema and the names starting with pg_ are PostgreSQL's own schemas; choose another name, such as the default %q", s, migrations.DefaultSchema)
	}
	if !catalog.ValidSchemaName(s) {
		return fmt.Errorf("invalid --schema %q: use lowercase letters, digits and _, starting with a letter or _, at most 63 characters", s)
	}
	return nil
}

// flagError explains a flag that did not parse. A Terraform-style flag
// with one dash (-auto-approve, -out=FILE) gets the spelling pgseq takes,
// with two dashes, when the command has that flag.
func (a *app) flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	if errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() != "" {
		// pflag reports the letters left after those it took as
		// shorthands (-help: "elp", -h being --help): find the argument.
		given := notExist.GetSpecifiedShortnames()
		for _, arg := range a.args {
			if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.HasSuffix(arg, given) {
				given = arg[1:]
				break
			}
		}
		name, _, _ := strings.Cut(given, "=")
		if len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			return fmt.Errorf("unknown flag -%s: did you mean --%s? (see %s --help)", given, given, cmd.CommandPath())
		}
	}
	return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
}

// groupCommand makes cmd, which only groups subcommands, fail on an
// unknown subcommand (cobra would print the help and succeed). Without
// arguments it prints the help.
func groupCommand(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's default for the root
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return errors.New(msg)
	}
	return cmd
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
		fmt.Fprintln(a.stderr, localNotice(a.localDir))
	}
	return dbconn.Connect(ctx, conn, appName)
}

// defaultLocalDir is --local-dir's default.
const defaultLocalDir = ".pgseq"

// localNotice says on stderr that pgseq uses its built-in database, with
// the command that stops it — carrying --local-dir when it is not the
// default, so that the command works as printed.
func localNotice(localDir string) string {
	stop := "pgseq dev stop"
	if localDir != defaultLocalDir {
		stop = "pgseq --local-dir " + shellQuote(localDir) + " dev stop"
	}
	return fmt.Sprintf("pgseq: no database configured; using the built-in local database in %s (%s stops it)", localDir, stop)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lockTimeoutFlag registers --lock-timeout on cmd, which must be positive.
func lockTimeoutFlag(cmd *cobra.Command, d *time.Duration) {
	*d = applier.DefaultLockTimeout
	cmd.Flags().Var(positiveDuration{d}, "lock-timeout", "how long to wait for any lock (the apply lock, slot rows) before giving up; must be positive")
}

// positiveDuration is a flag value holding a duration above zero.
type positiveDuration struct{ d *time.Duration }

func (p positiveDuration) String() string {
	if p.d == nil {
		return ""
	}
	return p.d.String()
}

func (p positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration: write a number with a unit, such as 5s or 500ms")
	}
	if d <= 0 {
		return errors.New("must be positive, such as 5s or 500ms")
	}
	*p.d = d
	return nil
}

func (p positiveDuration) Type() string { return "duration" }
