package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/plan"
)

func (a *app) showCommand() *cobra.Command {
	var asJSON, compact bool
	cmd := &cobra.Command{
		Use:   "show [--json] PLANFILE",
		Short: "Show a plan saved by pgseq plan --out, without a database",
		Long: `Prints a plan saved by "pgseq plan --out FILE" the way pgseq plan showed it —
what changed outside pgseq, the actions, their live context as it was when
the plan was made, the summary — under a header naming the file, the
database and schema it was made against, and the database state it was
made from. With --json it prints the
plan document itself, the one "pgseq plan --json" prints.

No database is needed or contacted: this is for reviewing a plan, in a pull
request or a CI artifact, before "pgseq apply PLANFILE" applies exactly it.
The file is checked as apply checks it: one that is damaged, truncated,
edited after pgseq wrote it, or not a pgseq plan is refused with the same
error (exit 1).`,
		Example: `  pgseq plan --out release.plan config/
  pgseq show release.plan
  pgseq show --json release.plan | jq '.summary'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			p, err := readShownPlan(path)
			if err != nil {
				return err
			}
			if asJSON {
				return p.Write(a.stdout)
			}
			var b strings.Builder
			b.WriteString(savedPlanHeader(path, p))
			b.WriteString("\n")
			if err := renderPlan(&b, p, compact); err != nil {
				return err
			}
			fmt.Fprintf(&b, "\n%s\n", showApplyHint(path, p))
			_, err = fmt.Fprint(a.stdout, b.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan document (as pgseq plan --json prints it)")
	compactFlag(cmd, &compact)
	return cmd
}

// readShownPlan reads the plan at path as apply reads it (readPlanFile),
// first refusing what apply would read as configuration, with a word on
// what show reads.
func readShownPlan(path string) (*plan.Plan, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan file: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("plan file %s: is a directory; pgseq show reads one plan saved by pgseq plan --out FILE", path)
	}
	if _, ok, err := savedPlanPath([]string{path}); err != nil {
		return nil, err
	} else if !ok {
		what := "it is empty"
		if st.Size() > 0 {
			what = `it is not a JSON document (a saved plan starts with "{")`
		}
		return nil, fmt.Errorf("plan file %s: %w: %s. pgseq show reads a plan saved by pgseq plan --out FILE; to see what a configuration would change, run pgseq plan %s",
			path, plan.ErrFormat, what, shellQuote(path))
	}
	return readPlanFile(path)
}

// savedPlanHeader says what is shown: a saved plan, which file, the
// database and schema it was made against, the state it was made from
// (the file has no creation time: its fingerprint identifies the state),
// and that its checksum was verified.
func savedPlanHeader(path string, p *plan.Plan) string {
	return fmt.Sprintf(`Saved plan %s (plan format %s; no database is read):
  database           %s
  schema             %s
  state fingerprint  %s
  checksum           %s (verified)
Live values (running, unfinished tasks) are as they were when the plan was
made. pgseq apply refuses this plan in another database, or if the database
no longer has the state with this fingerprint.
`, path, p.FormatVersion, shownDatabase(p.Database), p.Schema, p.Fingerprint, p.Checksum)
}

// shownDatabase names the database a saved plan was made against, or says
// that the file does not record it.
func shownDatabase(d *plan.Database) string {
	switch {
	case d == nil:
		return "unknown (the plan file does not record it: an older pgseq wrote it)"
	case d.SystemIdentifier == "":
		return fmt.Sprintf("%q (cluster unknown: the role that made the plan could not read its system identifier)", d.Name)
	}
	return fmt.Sprintf("%q, cluster system identifier %s", d.Name, d.SystemIdentifier)
}

// showApplyHint is plan --out's hint (applyHint) without "Saved the plan
// to FILE.": how to apply exactly this plan.
func showApplyHint(path string, p *plan.Plan) string {
	h := applyHint(path, p)
	if _, rest, ok := strings.Cut(h, "Saved the plan to "+path+". "); ok {
		return rest
	}
	return h
}
