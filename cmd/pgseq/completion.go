package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// completionShells are the shells pgseq completion writes scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script for bash, zsh, fish or PowerShell",
		Long: `Prints a script that makes the shell complete pgseq's commands, flags and
file arguments. Load it in the current shell, or install it where the shell
loads completions at startup (see the examples; start a new shell after).

  bash         needs the bash-completion package (v2)
  zsh          needs compinit: "autoload -U compinit; compinit" in ~/.zshrc
  fish         loads scripts from ~/.config/fish/completions
  powershell   add the line to your profile ($PROFILE)`,
		Example: `  # bash, this shell only:
  source <(pgseq completion bash)
  # bash, every shell (Linux; on macOS with Homebrew: $(brew --prefix)/etc/bash_completion.d/pgseq):
  pgseq completion bash | sudo tee /etc/bash_completion.d/pgseq > /dev/null

  # zsh, every shell:
  pgseq completion zsh > "${fpath[1]}/_pgseq"

  # fish:
  pgseq completion fish > ~/.config/fish/completions/pgseq.fish

  # PowerShell:
  pgseq completion powershell | Out-String | Invoke-Expression`,
		ValidArgs:             completionShells,
		DisableFlagsInUseLine: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("name one shell: pgseq completion bash, zsh, fish or powershell (see %s --help)", cmd.CommandPath())
			}
			for _, s := range completionShells {
				if args[0] == s {
					return nil
				}
			}
			return fmt.Errorf("unsupported shell %q: pgseq completion writes scripts for bash, zsh, fish and powershell", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.stdout, true)
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			default:
				return root.GenPowerShellCompletionWithDesc(a.stdout)
			}
		},
	}
}
