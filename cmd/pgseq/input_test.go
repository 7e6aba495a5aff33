package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// Inputs that used to crash the parser (a Go stack overflow, exit 2) or
// stall it (a number literal parsed in quadratic time) are refused by
// every command that reads HCL, with a located diagnostic, exit 1, no
// echo of the input and no database change.
func TestHugeAndDeepInputsAreRefused(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	cases := []struct {
		name, src, want string
	}{
		{"nested.hcl", "x = " + strings.Repeat("(", 70_000) + "1" + strings.Repeat(")", 70_000) + "\n",
			":1:37: error: Nesting too deep"},
		{"digits-1e6.hcl", "task \"a\" {\n  concurrency = " + strings.Repeat("1", 1_000_000) + "\n}\n",
			":2:17: error: Number literal too long"},
		{"digits-1e7.hcl", "task \"a\" {\n  concurrency = " + strings.Repeat("1", 10_000_000) + "\n}\n",
			":2:1048566: error: Configuration file too large"},
	}
	for _, tc := range cases {
		path := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(path, []byte(tc.src), 0o644))
		for _, cmd := range [][]string{{"validate"}, {"plan"}, {"apply", "--auto-approve"}, {"fmt"}, {"fmt", "--check"}} {
			r := c.run(append(cmd, path)...)
			require.Equal(t, exitError, r.code, "%s %s:\n%.2000s", cmd[0], tc.name, r.stderr)
			require.Contains(t, r.stderr, path+tc.want, "%s %s", cmd[0], tc.name)
			require.Less(t, len(r.stderr), 2000, "%s %s echoes the input:\n%.3000s", cmd[0], tc.name, r.stderr)
		}
	}
	require.False(t, c.schemaExists(), "nothing may be applied")
}

// pgseq fmt shows the source line of a syntax error, as validate does.
func TestFmtShowsTheSourceLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for file, line := range map[string]string{
		"../../spec/testdata/error-files/single-line-block-two-arguments.hcl": "  4 |   backoff { initial = \"1s\" max = \"10m\" }\n    |                            ^^^\n",
		"../../spec/testdata/error-files/missing-newline-after-argument.hcl":  "  4 |   batch_size = 100 max_retries = 5\n    |                    ^^^^^^^^^^^\n",
	} {
		for _, cmd := range [][]string{{"fmt", "--check"}, {"validate"}} {
			r := c.run(append(cmd, file)...)
			require.Equal(t, exitError, r.code, r.stderr)
			require.Contains(t, r.stderr, line, "%s %s", cmd[0], file)
		}
	}
}

func TestUnknownSubcommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dev", "stpo"}, "unknown command \"stpo\" for \"pgseq dev\"\n\nDid you mean this?\n\tstop"},
		{[]string{"bench", "nope"}, "unknown command \"nope\" for \"pgseq bench\""},
		{[]string{"bench", "drian"}, "Did you mean this?\n\tdrain"},
		{[]string{"valdate"}, "unknown command \"valdate\" for \"pgseq\"\n\nDid you mean this?\n\tvalidate"},
	} {
		r := c.run(tc.args...)
		require.Equal(t, exitError, r.code, "%v:\n%s", tc.args, r.stdout)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.NotContains(t, r.stdout, "Usage:", "%v", tc.args)
	}
	// A group alone still shows its help.
	r := c.run("dev")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Available Commands:")
}

// Terraform-style flags with one dash are answered with the spelling pgseq
// takes, for every command.
func TestSingleDashFlagsSuggestTwoDashes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := writeConfig(t, limit10)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-out=x.plan", file}, "unknown flag -out=x.plan: did you mean --out=x.plan?"},
		{[]string{"plan", "-json", file}, "unknown flag -json: did you mean --json?"},
		{[]string{"plan", "-detailed-exitcode", file}, "unknown flag -detailed-exitcode: did you mean --detailed-exitcode?"},
		{[]string{"apply", "-auto-approve", file}, "unknown flag -auto-approve: did you mean --auto-approve?"},
		{[]string{"apply", "-lock-timeout=1s", file}, "unknown flag -lock-timeout=1s: did you mean --lock-timeout=1s?"},
		{[]string{"fmt", "-check", file}, "unknown flag -check: did you mean --check?"},
		{[]string{"validate", "-schema", "x", file}, "unknown flag -schema: did you mean --schema?"},
		{[]string{"validate", "-help"}, "unknown flag -help: did you mean --help?"},
		{[]string{"dev", "status", "-local-dir", "x"}, "unknown flag -local-dir: did you mean --local-dir?"},
		// Not a flag of plan: no suggestion, but still a pointer to the help.
		{[]string{"plan", "-auto-approve", file}, "unknown shorthand flag: 'a' in -auto-approve (see pgseq plan --help)"},
	} {
		r := c.run(tc.args...)
		require.Equal(t, exitError, r.code, "%v", tc.args)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
	require.False(t, c.schemaExists())
}

func TestLockTimeoutMustBePositive(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := writeConfig(t, limit10)
	for _, value := range []string{"0s", "0", "-1s", "-5m"} {
		for _, cmd := range [][]string{{"apply", "--auto-approve", "--lock-timeout", value, file}, {"migrate", "--lock-timeout=" + value}} {
			r := c.run(cmd...)
			require.Equal(t, exitError, r.code, "%v:\n%s", cmd, r.stdout)
			require.Contains(t, r.stderr, `invalid argument "`+value+`" for "--lock-timeout" flag: must be positive`, "%v", cmd)
		}
	}
	require.False(t, c.schemaExists(), "nothing may be applied")

	r := c.run("apply", "--help")
	require.Contains(t, r.stdout, "must be positive")
}

func TestReservedSchemasAreRefused(t *testing.T) {
	t.Parallel()
	file := writeConfig(t, limit10)
	for _, schema := range []string{"information_schema", "pg_catalog", "pg_toast", "pg_temp_1", "pg_anything"} {
		// An unreachable database: the name is refused before connecting.
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--database-url", "postgres://u@127.0.0.1:1/db?connect_timeout=1",
			"--schema", schema, "apply", "--auto-approve", file}, strings.NewReader(""), &out, &errb)
		require.Equal(t, exitError, code, schema)
		require.Contains(t, errb.String(), `invalid --schema "`+schema+`": information_schema and the names starting with pg_ are PostgreSQL's own schemas`)
		require.NotContains(t, errb.String(), "127.0.0.1", "refused before connecting")
	}
	// public is an ordinary schema.
	require.NoError(t, validSchema("public"))
}

func TestDevStatusExitCode(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--local-dir", t.TempDir(), "dev", "status"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, exitNotRunning, code, errb.String())
	require.Contains(t, out.String(), "status:   stopped")
	require.Empty(t, errb.String())

	if os.Getenv(pgtest.EnvURL) == "" {
		// The tests' own local cluster is running.
		pgtest.ConnString(t)
		out.Reset()
		code = run(context.Background(), []string{"--local-dir", "../../.pgseq", "dev", "status"}, strings.NewReader(""), &out, &errb)
		require.Equal(t, exitOK, code, errb.String())
		require.Contains(t, out.String(), "status:   running")
	}
}

// Counts in user-facing output agree with their nouns.
func TestValidateCountsInTheSingular(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("validate", writeConfig(t, "queue \"default\" {}\ntask \"a\" {}\n"))
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "The configuration is valid: 1 queue, 1 task type, 0 counters.\n", r.stdout)
}

// A configuration that declares nothing is valid, but validate, plan and
// apply warn that a plan of it deletes everything.
func TestEmptyConfigurationWarns(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, src := range []string{"", "# nothing yet\n"} {
		file := writeConfig(t, src)
		for _, cmd := range [][]string{{"validate"}, {"plan"}, {"apply", "--auto-approve"}} {
			r := c.run(append(cmd, file)...)
			require.Equal(t, exitOK, r.code, "%s:\n%s", cmd[0], r.stderr)
			require.Contains(t, r.stderr, "warning: Configuration declares nothing\n", cmd[0])
			require.Contains(t, r.stderr, "deletes every queue, task type and counter", cmd[0])
		}
	}
}
