package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/hcldecode"
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
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Ctrl-C or SIGTERM: say so, not "context canceled".
		fmt.Fprintf(stderr, "Error: %s\n", interrupted(cmd))
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

// interrupted says that cmd was interrupted (Ctrl-C, SIGTERM), and what
// that left: only the commands that write speak of what was applied.
func interrupted(cmd *cobra.Command) string {
	if cmd == nil {
		return "interrupted"
	}
	switch cmd.CommandPath() {
	case "pgseq apply":
		return "apply interrupted; nothing was applied (the transaction in progress, if any, was rolled back)"
	case "pgseq migrate":
		return "migrate interrupted; no migration was applied (the transaction in progress, if any, was rolled back)"
	case "pgseq plan":
		return "plan interrupted (plan only reads: nothing in the database changed)"
	}
	return cmd.CommandPath() + " interrupted"
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
	pf.StringVar(&a.localDir, "local-dir", "", "directory of the built-in local database (default: the nearest .pgseq above the working directory, up to the repository root; a new one at the repository root, or here outside a repository)")
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
// with two dashes, when the command has that flag; a misspelt one
// (--auto-aprove) gets the command's closest flag name, if one is close.
func (a *app) flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	if !errors.As(err, &notExist) {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	}
	given, dashes := "--"+notExist.GetSpecifiedName(), "--"
	for _, arg := range a.args {
		if strings.HasPrefix(arg, given+"=") {
			given = arg // with its value, to repeat it in the suggestion
			break
		}
	}
	if short := notExist.GetSpecifiedShortnames(); short != "" {
		// pflag reports the letters left after those it took as
		// shorthands (-help: "elp", -h being --help): find the argument.
		given, dashes = "-"+short, "-"
		for _, arg := range a.args {
			if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.HasSuffix(arg, short) {
				given = arg
				break
			}
		}
	}
	name, value, hasValue := strings.Cut(strings.TrimLeft(given, "-"), "=")
	if hasValue {
		value = "=" + value
	}
	if dashes == "-" && len(name) > 1 && cmd.Flags().Lookup(name) != nil {
		return fmt.Errorf("unknown flag %s: did you mean --%s%s? (see %s --help)", given, name, value, cmd.CommandPath())
	}
	if len(name) > 1 {
		if suggestion := closestFlag(cmd.Flags(), name); suggestion != "" {
			return fmt.Errorf("unknown flag %s: did you mean --%s%s? (see %s --help)", given, suggestion, value, cmd.CommandPath())
		}
	}
	return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
}

// maxFlagDistance is how many edits apart a flag name may be from a
// misspelling of it to be suggested (cobra's SuggestionsMinimumDistance
// for commands).
const maxFlagDistance = 2

// closestFlag returns the name of the visible flag of flags closest to
// name, within maxFlagDistance edits or starting with it, or "". Ties go
// to the first in alphabetical order.
func closestFlag(flags *pflag.FlagSet, name string) string {
	best, bestDistance := "", maxFlagDistance+1
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := hcldecode.EditDistance(strings.ToLower(name), f.Name)
		if d > maxFlagDistance && len(name) >= 3 && strings.HasPrefix(f.Name, strings.ToLower(name)) {
			d = maxFlagDistance
		}
		if d < bestDistance {
			best, bestDistance = f.Name, d
		}
	})
	return best
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
// when nothing is configured) and returns a pool that works behind a
// connection pooler in transaction mode (dbconn.ConnectSourcePoolerSafe:
// no prepared statements unless the connection string asks for them).
// paths are the configuration or plan file given, whose directories are
// searched for the project's local database after the working directory's
// (localLocation).
func (a *app) connect(ctx context.Context, appName string, paths ...string) (*pgxpool.Pool, error) {
	src, err := a.source(ctx, paths)
	if err != nil {
		return nil, err
	}
	return dbconn.ConnectSourcePoolerSafe(ctx, src, appName)
}

// connectAsWorkers is connect with pgx's own default query mode (prepared
// statements, cached): what the benchmarks measure, as workers run.
func (a *app) connectAsWorkers(ctx context.Context, appName string) (*pgxpool.Pool, error) {
	src, err := a.source(ctx, nil)
	if err != nil {
		return nil, err
	}
	return dbconn.ConnectSource(ctx, src, appName)
}

// source resolves the connection, starting the built-in local database
// when nothing is configured.
func (a *app) source(ctx context.Context, paths []string) (dbconn.Source, error) {
	src, err := dbconn.Resolve(a.databaseURL, os.Getenv)
	if err != nil {
		return src, err
	}
	if src.Local {
		if src.ConnString, err = a.startLocal(ctx, paths); err != nil {
			return src, err
		}
	}
	return src, nil
}

// startLocal starts the project's built-in local database (localLocation)
// and returns its connection string. It says on stderr that pgseq uses it,
// and where it creates it when it creates it.
func (a *app) startLocal(ctx context.Context, paths []string) (string, error) {
	loc, err := a.localLocation(paths)
	if err != nil {
		return "", err
	}
	db, err := localdb.New(loc.Dir)
	if err != nil {
		return "", err
	}
	if !loc.Exists {
		fmt.Fprintf(a.stderr, "pgseq: creating the built-in local database in %s\n", db.Dir())
	}
	conn, err := db.Start(ctx)
	if err != nil {
		return "", fmt.Errorf("starting the built-in local database: %w", err)
	}
	shown, withFlag := a.localDir, a.localDir != ""
	if !withFlag {
		shown = loc.Dir
		// pgseq dev stop, run from here, finds it unless it was found from
		// the configuration's directory.
		fromHere, err := a.localLocation(nil)
		withFlag = err != nil || fromHere.Dir != loc.Dir
	}
	fmt.Fprintln(a.stderr, localNotice(shown, withFlag))
	return conn, nil
}

// localLocation returns where the built-in local database is: in
// --local-dir when given, else the project's (localdb.Locate), looked for
// above the working directory and then above the directories of paths.
func (a *app) localLocation(paths []string) (localdb.Location, error) {
	if a.localDir != "" {
		abs, err := filepath.Abs(a.localDir)
		if err != nil {
			return localdb.Location{}, fmt.Errorf("--local-dir %s: %w", a.localDir, err)
		}
		st, err := os.Stat(abs)
		return localdb.Location{Dir: abs, Exists: err == nil && st.IsDir()}, nil
	}
	starts := []string{"."}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			p = filepath.Dir(p)
		}
		starts = append(starts, p)
	}
	return localdb.Locate(starts...)
}

// localNotice says on stderr that pgseq uses its built-in database in dir,
// with the command that stops it: with --local-dir dir when withFlag (a
// --local-dir was given, or pgseq dev stop run from here would not find
// dir), quoted for the shell when needed.
func localNotice(dir string, withFlag bool) string {
	stop := "pgseq dev stop"
	if withFlag {
		stop = "pgseq --local-dir " + shellQuote(dir) + " dev stop"
	}
	return fmt.Sprintf("pgseq: no database configured; using the built-in local database in %s (%s stops it)", dir, stop)
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

// lockTimeoutFlag registers --lock-timeout on cmd, which must be
// positive; usage says which locks it bounds.
func lockTimeoutFlag(cmd *cobra.Command, d *time.Duration, usage string) {
	*d = applier.DefaultLockTimeout
	cmd.Flags().Var(positiveDuration{d}, "lock-timeout", usage+" before giving up, naming the session that holds it; must be positive")
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
