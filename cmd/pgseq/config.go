package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/pgseq/pgseq/reconcile"
	"github.com/pgseq/pgseq/spec"
)

// loadConfig parses and validates the configuration at paths. Diagnostics
// go to stderr; errors among them make it fail (already reported).
func (a *app) loadConfig(paths []string) (*spec.Config, error) {
	cfg, diags := spec.Load(paths...)
	if len(diags) > 0 {
		var files map[string]*hcl.File
		if cfg != nil {
			files = cfg.Files
		}
		if err := spec.WriteDiagnostics(a.stderr, diags, files); err != nil {
			return nil, fmt.Errorf("printing diagnostics: %w", err)
		}
	}
	if diags.HasErrors() {
		return nil, errReported
	}
	return cfg, nil
}

// counterDiagnostics reports a *reconcile.CounterProblemsError in err as
// diagnostics at the counters' source in cfg, and an
// *reconcile.AccessProblemsError at the roles' place in the access block, and
// returns reported; any other error is returned as it is.
func (a *app) counterDiagnostics(err error, cfg *spec.Config) error {
	var cpe *reconcile.CounterProblemsError
	var ape *reconcile.AccessProblemsError
	// Both: a run reports the counters' problems and the roles' together.
	hasCounter, hasAccess := errors.As(err, &cpe), errors.As(err, &ape)
	if cfg == nil || !hasCounter && !hasAccess {
		return err
	}
	var diags hcl.Diagnostics
	if cpe != nil {
		for _, p := range cpe.Problems {
			diags = append(diags, cfg.CounterDiag(p.Counter, p.Attr, p.Summary, p.Detail))
		}
	}
	if ape != nil {
		for _, p := range ape.Problems {
			diags = append(diags, cfg.AccessDiag(p.Role, p.Summary, p.Detail))
		}
	}
	if werr := spec.WriteDiagnostics(a.stderr, diags, cfg.Files); werr != nil {
		return fmt.Errorf("printing diagnostics: %w", werr)
	}
	return errReported
}

// savedPlanPath decides, by content, whether args name a saved plan rather
// than a configuration; plan and apply both ask it, so a path means the
// same to both whatever its name. A saved plan is a single regular file
// whose first character other than white space is "{": a JSON document.
// No configuration starts so (HCL starts with a block or an argument), so a
// damaged or foreign JSON file is read as a plan and gets the plan reader's
// errors ("no format_version"…) rather than HCL syntax errors. Anything
// else — several paths, a directory, a file starting otherwise, a path that
// does not exist — is a configuration.
func savedPlanPath(args []string) (string, bool, error) {
	if len(args) != 1 {
		return "", false, nil
	}
	st, err := os.Stat(args[0])
	if err != nil || !st.Mode().IsRegular() {
		return "", false, nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", args[0], err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		switch {
		case err == io.EOF:
			return "", false, nil
		case err != nil:
			return "", false, fmt.Errorf("reading %s: %w", args[0], err)
		case bytes.IndexByte([]byte(" \t\r\n"), b) >= 0:
			continue
		}
		if b != '{' {
			return "", false, nil
		}
		return args[0], true, nil
	}
}
