package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Every workflow in examples/ci parses, and every pgseq command its run:
// scripts invoke exists, with flags that command has and arguments it
// accepts. The invocations found are listed, so that a script the reader
// here cannot follow fails the test instead of passing unseen.
func TestCIWorkflowsInvokeRealCommands(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/ci/*.yml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 2)
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()

	found := map[string][]string{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal(src, &doc), file)
		checkWorkflowShape(t, file, &doc)
		for _, run := range runScripts(&doc) {
			cmds, err := shellCommands(run.script)
			require.NoError(t, err, "%s:%d", file, run.line)
			for _, c := range cmds {
				args, ok := pgseqArgs(c.words)
				if !ok {
					continue
				}
				at := fmt.Sprintf("%s:%d", file, run.line+c.line)
				got, err := checkInvocation(root, args)
				require.NoError(t, err, "%s: pgseq %s", at, strings.Join(args, " "))
				found[filepath.Base(file)] = append(found[filepath.Base(file)], got)
			}
		}
	}
	has := func(file string, want ...string) {
		t.Helper()
		for _, w := range want {
			require.Contains(t, found[file], w, "%s invokes %s; found %q", file, w, found[file])
		}
	}
	has("plan-apply.yml",
		"pgseq version",
		"pgseq validate --json",
		"pgseq fmt --check --diff",
		"pgseq plan --detailed-exitcode --out",
		"pgseq show",
		"pgseq show --json",
		"pgseq apply",
		"pgseq apply --allow-destroy",
		"pgseq plan --detailed-exitcode",
	)
	has("bench.yml", "pgseq bench ab --base --out --quick", "pgseq bench ab --base --instructions --out")
}

// checkWorkflowShape checks what GitHub needs of a workflow: a name, an on,
// and jobs whose steps each use an action or run a script.
func checkWorkflowShape(t *testing.T, file string, doc *yaml.Node) {
	t.Helper()
	require.Equal(t, yaml.DocumentNode, doc.Kind, file)
	top := doc.Content[0]
	require.Equal(t, yaml.MappingNode, top.Kind, file)
	for _, key := range []string{"name", "on", "jobs"} {
		require.NotNil(t, mapValue(top, key), "%s has no %s", file, key)
	}
	jobs := mapValue(top, "jobs")
	require.Equal(t, yaml.MappingNode, jobs.Kind, file)
	for i := 0; i < len(jobs.Content); i += 2 {
		name, job := jobs.Content[i].Value, jobs.Content[i+1]
		require.NotNil(t, mapValue(job, "runs-on"), "%s: job %s has no runs-on", file, name)
		steps := mapValue(job, "steps")
		require.NotNil(t, steps, "%s: job %s has no steps", file, name)
		require.Equal(t, yaml.SequenceNode, steps.Kind)
		for _, step := range steps.Content {
			uses, run := mapValue(step, "uses"), mapValue(step, "run")
			require.True(t, (uses == nil) != (run == nil), "%s:%d: a step uses an action or runs a script", file, step.Line)
			if uses != nil {
				require.Regexp(t, `^[\w.-]+/[\w.-]+@v\d+$`, uses.Value, "%s:%d: actions are pinned to a major version", file, uses.Line)
			}
		}
	}
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

type runScript struct {
	script string
	// line is the line of the workflow just before the script's first
	// line, so that line + a line of the script is the workflow's.
	line int
}

// runScripts returns the scripts of every run: key holding a string.
func runScripts(n *yaml.Node) []runScript {
	var out []runScript
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "run" && v.Kind == yaml.ScalarNode {
					line := v.Line - 1
					if v.Style == yaml.LiteralStyle || v.Style == yaml.FoldedStyle {
						line = v.Line // the script starts below the | or >
					}
					out = append(out, runScript{v.Value, line})
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// ghExpression is a GitHub Actions expression, replaced before the shell
// reads the script.
var ghExpression = regexp.MustCompile(`\$\{\{.*?\}\}`)

// fileDescriptor is the number before a redirection (2>&1).
var fileDescriptor = regexp.MustCompile(`^\d+$`)

// shellCommand is a simple command of a script: its words, quotes
// removed, and the line (from 1) it starts on.
type shellCommand struct {
	words []string
	line  int
}

// shellCommands splits a POSIX shell script into simple commands, as far
// as telling which commands it runs needs: quotes, backslashes, line
// continuations, comments, the separators ; & | && || ( ) and newlines,
// command substitutions $( ) and ` `, redirections (their targets are not
// words of the command) and here-documents (skipped). Variables are left
// as written; GitHub expressions become the word GHEXPR. A command
// substitution inside double quotes ("$(pgseq …)") is not followed.
func shellCommands(script string) ([]shellCommand, error) {
	s := ghExpression.ReplaceAllString(script, "GHEXPR")
	var (
		cmds       []shellCommand
		words      []string
		word       strings.Builder
		inWord     bool
		skipTarget bool // the next word is a redirection's target
		line       = 1
		start      = 1
		heredocs   []string // delimiters of here-documents to skip
		stripTabs  []bool
	)
	endWord := func() {
		if !inWord {
			return
		}
		if skipTarget {
			skipTarget = false
		} else {
			if len(words) == 0 {
				start = line
			}
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, shellCommand{words, start})
		}
		words = nil
	}
	// readWord reads a plain word (a redirection's target or a
	// here-document's delimiter) at s[i:], quotes removed.
	readWord := func(i int) (string, int) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var w strings.Builder
		for i < len(s) && !strings.ContainsRune(" \t\n;&|()<>", rune(s[i])) {
			if s[i] == '\'' || s[i] == '"' {
				q := s[i]
				j := strings.IndexByte(s[i+1:], q)
				if j < 0 {
					return w.String(), len(s)
				}
				w.WriteString(s[i+1 : i+1+j])
				i += j + 2
				continue
			}
			w.WriteByte(s[i])
			i++
		}
		return w.String(), i
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			line++
		case c == '\\' && i+1 < len(s):
			word.WriteByte(s[i+1])
			inWord = true
			i += 2
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("line %d: unterminated '", line)
			}
			word.WriteString(s[i+1 : i+1+j])
			line += strings.Count(s[i+1:i+1+j], "\n")
			inWord = true
			i += j + 2
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						line++
						continue
					}
				} else if s[i] == '\n' {
					line++
				}
				word.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("line %d: unterminated \"", line)
			}
			inWord = true
			i++
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
			i++
		case c == '\n':
			endCommand()
			line++
			i++
			for k, delim := range heredocs {
				for i < len(s) {
					end := strings.IndexByte(s[i:], '\n')
					if end < 0 {
						end = len(s) - i
					}
					l := s[i : i+end]
					i += min(end+1, len(s)-i)
					line++
					if stripTabs[k] {
						l = strings.TrimLeft(l, "\t")
					}
					if l == delim {
						break
					}
				}
			}
			heredocs, stripTabs = nil, nil
		case c == '>' || c == '<' || c == '&' && i+1 < len(s) && s[i+1] == '>':
			// A redirection; digits just before it are its file
			// descriptor, not a word.
			if inWord && fileDescriptor.MatchString(word.String()) {
				word.Reset()
				inWord = false
			}
			endWord()
			op := string(c)
			i++
			for i < len(s) && strings.IndexByte("<>&|-", s[i]) >= 0 && len(op) < 3 {
				if s[i] == '-' && op != "<<" {
					break
				}
				op += string(s[i])
				i++
			}
			switch {
			case op == "<<" || op == "<<-":
				var delim string
				delim, i = readWord(i)
				heredocs = append(heredocs, delim)
				stripTabs = append(stripTabs, op == "<<-")
			case strings.HasSuffix(op, "&") && op != "&":
				_, i = readWord(i) // >&2, <&0
			default:
				skipTarget = true
			}
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`':
			endCommand()
			i++
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			endCommand()
			i += 2
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCommand()
	return cmds, nil
}

// shellPrefixes are words before a command that run it (or test it): the
// command is the next word.
var shellPrefixes = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "while": true, "until": true,
	"do": true, "!": true, "time": true, "exec": true, "command": true, "env": true, "sudo": true, "{": true,
}

var shellAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// pgseqArgs returns the arguments of a command that runs pgseq: pgseq,
// ./pgseq or any path to it, or go run of the pgseq command.
func pgseqArgs(words []string) ([]string, bool) {
	for len(words) > 0 && (shellPrefixes[words[0]] || shellAssignment.MatchString(words[0])) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, false
	}
	if path.Base(words[0]) == "pgseq" {
		return words[1:], true
	}
	if words[0] == "go" && len(words) > 2 && words[1] == "run" {
		for i, w := range words[2:] {
			if strings.HasPrefix(w, "-") {
				continue
			}
			pkg, _, _ := strings.Cut(w, "@")
			if pkg == "./cmd/pgseq" || pkg == "github.com/pgseq/pgseq/cmd/pgseq" {
				return words[2+i+1:], true
			}
			return nil, false
		}
	}
	return nil, false
}

// checkInvocation follows args through the command tree from root as
// cobra would: subcommands by name, flags of the command reached (its own
// and those it inherits; a flag's value taken from the next word when the
// flag needs one), and its remaining arguments checked by its Args. It
// returns "pgseq SUB... --flag..." (flags sorted, without values).
func checkInvocation(root *cobra.Command, args []string) (string, error) {
	cmd := root
	var positional []string
	flags := map[string]bool{}
	lookup := func(name string, short bool) *cobraFlag {
		cmd.InitDefaultHelpFlag()
		cmd.InitDefaultVersionFlag()
		_ = cmd.InheritedFlags() // merges the parents' persistent flags
		f := cmd.Flags().Lookup(name)
		if short {
			f = cmd.Flags().ShorthandLookup(name)
		}
		if f == nil {
			return nil
		}
		return &cobraFlag{name: f.Name, bool: f.NoOptDefVal != ""}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			f := lookup(name, false)
			if f == nil {
				return "", fmt.Errorf("%s has no flag --%s", cmd.CommandPath(), name)
			}
			flags["--"+f.name] = true
			if !hasValue && !f.bool {
				if i++; i >= len(args) {
					return "", fmt.Errorf("%s: flag --%s needs a value", cmd.CommandPath(), name)
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				f := lookup(a[j:j+1], true)
				if f == nil {
					return "", fmt.Errorf("%s has no flag -%s", cmd.CommandPath(), a[j:j+1])
				}
				flags["--"+f.name] = true
				if !f.bool {
					if j == len(a)-1 {
						if i++; i >= len(args) {
							return "", fmt.Errorf("%s: flag -%s needs a value", cmd.CommandPath(), a[j:j+1])
						}
					}
					break
				}
			}
		case len(positional) == 0 && cmd.HasSubCommands():
			var sub *cobra.Command
			for _, c := range cmd.Commands() {
				if c.Name() == a || c.HasAlias(a) {
					sub = c
				}
			}
			if sub == nil {
				return "", fmt.Errorf("%s has no subcommand %q", cmd.CommandPath(), a)
			}
			cmd = sub
		default:
			positional = append(positional, a)
		}
	}
	// --help (and --version) answer without looking at the arguments.
	if !flags["--help"] && !flags["--version"] {
		if err := cmd.ValidateArgs(positional); err != nil {
			return "", fmt.Errorf("%s: %w", cmd.CommandPath(), err)
		}
	}
	names := make([]string, 0, len(flags))
	for f := range flags {
		names = append(names, f)
	}
	sort.Strings(names)
	return strings.TrimSpace(cmd.CommandPath() + " " + strings.Join(names, " ")), nil
}

type cobraFlag struct {
	name string
	bool bool
}

func TestShellCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         [][]string // the pgseq arguments of each pgseq command
	}{
		{"a plain command", "pgseq validate config/", [][]string{{"validate", "config/"}}},
		{"a path to the binary, among other commands", "set +e\n./pgseq bench run --quick --out bench-out scenarios/\necho \"code=$?\" >> \"$GITHUB_OUTPUT\"",
			[][]string{{"bench", "run", "--quick", "--out", "bench-out", "scenarios/"}}},
		{"in an if", "if [ \"$A\" = true ]; then\n  pgseq apply --allow-destroy x\nelse\n  pgseq apply x\nfi",
			[][]string{{"apply", "--allow-destroy", "x"}, {"apply", "x"}}},
		{"in a command substitution and a pipe", "x=$(pgseq show --json p | jq .summary)", [][]string{{"show", "--json", "p"}}},
		{"continued lines and redirections", "pgseq plan \\\n  --out p \\\n  cfg 2>&1 | tee log > out.txt", [][]string{{"plan", "--out", "p", "cfg"}}},
		{"redirections before and after", "pgseq >out.txt 2>/dev/null version </dev/null", [][]string{{"version"}}},
		{"quoted words", `pgseq --schema "a b" validate 'c d' "e\"f"`, [][]string{{"--schema", "a b", "validate", "c d", `e"f`}}},
		{"assignments and prefixes", "PGSEQ_DATABASE_URL=x sudo env A=1 pgseq migrate", [][]string{{"migrate"}}},
		{"an environment shellAssignment before pgseq", "A=1 B=2 pgseq migrate", [][]string{{"migrate"}}},
		{"go run", "go run ./cmd/pgseq fmt --check .\ngo run -race github.com/pgseq/pgseq/cmd/pgseq@v1.0.0 version", [][]string{{"fmt", "--check", "."}, {"version"}}},
		{"go install is not a run", `go install "github.com/pgseq/pgseq/cmd/pgseq@${V}"`, nil},
		{"mentions are not commands", "echo \"pgseq apply is not run here\" # pgseq apply\n# pgseq apply", nil},
		{"here-documents are skipped", "cat <<EOF > x\npgseq apply nope\nEOF\ncat <<-'END'\n\tpgseq apply nope\n\tEND\npgseq version", [][]string{{"version"}}},
		{"GitHub expressions", "pgseq validate --json \"${{ env.X }}\" > v.json", [][]string{{"validate", "--json", "GHEXPR"}}},
	}
	for _, tt := range tests {
		cmds, err := shellCommands(tt.script)
		require.NoError(t, err, tt.name)
		var got [][]string
		for _, c := range cmds {
			if args, ok := pgseqArgs(c.words); ok {
				got = append(got, args)
			}
		}
		require.Equal(t, tt.want, got, tt.name)
	}
	cmds, err := shellCommands("a\nb \\\n c\n\nd")
	require.NoError(t, err)
	var lines []int
	for _, c := range cmds {
		lines = append(lines, c.line)
	}
	require.Equal(t, []int{1, 2, 5}, lines)
	_, err = shellCommands("echo 'open")
	require.Error(t, err)
}

func TestCheckInvocation(t *testing.T) {
	t.Parallel()
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()
	for _, tc := range []struct {
		args []string
		want string // the invocation, or the error
	}{
		{[]string{"plan", "--detailed-exitcode", "--out", "p", "cfg"}, "pgseq plan --detailed-exitcode --out"},
		{[]string{"--schema", "s", "plan", "--out=p", "cfg"}, "pgseq plan --out --schema"},
		{[]string{"plan", "--database-url", "u", "cfg"}, "pgseq plan --database-url"},
		{[]string{"dev", "status"}, "pgseq dev status"},
		{[]string{"-v"}, "pgseq --version"},
		{[]string{"show", "-h"}, "pgseq show --help"},
		{[]string{"plna", "cfg"}, `pgseq has no subcommand "plna"`},
		{[]string{"plan", "--no-such", "cfg"}, "pgseq plan has no flag --no-such"},
		{[]string{"validate", "--out", "x", "cfg"}, "pgseq validate has no flag --out"},
		{[]string{"plan", "cfg", "--out"}, "pgseq plan: flag --out needs a value"},
		{[]string{"show"}, "pgseq show: accepts 1 arg(s), received 0"},
		{[]string{"show", "a", "b"}, "pgseq show: accepts 1 arg(s), received 2"},
		{[]string{"version", "x"}, `pgseq version: unknown command "x" for "pgseq version"`},
	} {
		got, err := checkInvocation(root, tc.args)
		if err != nil {
			got = err.Error()
		}
		require.Equal(t, tc.want, got, "%v", tc.args)
	}
}
