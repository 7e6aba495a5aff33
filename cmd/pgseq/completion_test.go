package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pgseq completion writes each shell's script, which completes pgseq.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, marker := range map[string]string{
		"bash":       "complete -o default -F __start_pgseq pgseq",
		"zsh":        "#compdef pgseq",
		"fish":       "complete -c pgseq",
		"powershell": "Register-ArgumentCompleter -CommandName 'pgseq'",
	} {
		r := runOffline("completion", shell)
		require.Equal(t, 0, r.code, "%s: %s", shell, r.stderr)
		require.Empty(t, r.stderr, shell)
		require.Contains(t, r.stdout, marker, shell)
		require.Contains(t, r.stdout, "__complete", shell)
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		r := runOffline(args...)
		require.Equal(t, exitError, r.code, "%v", args)
		require.Contains(t, r.stderr, "bash, zsh, fish", "%v", args)
	}
}

// The scripts call pgseq __complete, which knows the new commands and
// flags.
func TestCompletionCompletes(t *testing.T) {
	t.Parallel()
	r := runOffline("__complete", "")
	require.Equal(t, 0, r.code, r.stderr)
	for _, cmd := range []string{"show", "version", "completion", "validate", "fmt", "plan", "apply"} {
		require.Contains(t, "\n"+r.stdout, "\n"+cmd+"\t", cmd)
	}
	r = runOffline("__complete", "fmt", "--")
	require.Contains(t, r.stdout, "--diff\t")
	require.Contains(t, r.stdout, "--check\t")
	r = runOffline("__complete", "completion", "")
	require.Equal(t, "bash\nzsh\nfish\npowershell\n:4\n", r.stdout)
}

// Every command this issue adds or extends has --help with an example,
// and the root help lists the new commands.
func TestNewCommandsHaveHelpWithExamples(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"show", "version", "completion", "validate", "fmt"} {
		r := runOffline(cmd, "--help")
		require.Equal(t, 0, r.code, cmd)
		require.Contains(t, r.stdout, "\nExamples:\n  ", cmd)
		require.Contains(t, r.stdout, "pgseq "+cmd, cmd)
	}
	r := runOffline("--help")
	for _, cmd := range []string{"show", "version", "completion"} {
		require.True(t, strings.Contains(r.stdout, "\n  "+cmd+" "), cmd)
	}
}
