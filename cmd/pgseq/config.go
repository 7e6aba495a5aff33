package main

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/plan"
	"github.com/pgseq/pgseq/planner"
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
		return nil, reported
	}
	return cfg, nil
}

// makePlan reads the actual state and plans the configuration against it.
// Counters that reference missing tables or columns are reported as
// diagnostics at their source, and nothing is planned.
func (a *app) makePlan(ctx context.Context, pool *pgxpool.Pool, cfg *spec.Config) (*plan.Plan, error) {
	desired := cfg.State()
	problems, err := inspect.CheckCounters(ctx, pool, a.schema, desired.Counters)
	if err != nil {
		return nil, fmt.Errorf("checking counter tables: %w", err)
	}
	if len(problems) > 0 {
		var diags hcl.Diagnostics
		for _, p := range problems {
			diags = append(diags, cfg.CounterDiag(p.Counter, p.Attr, p.Summary, p.Detail))
		}
		if err := spec.WriteDiagnostics(a.stderr, diags, cfg.Files); err != nil {
			return nil, err
		}
		return nil, reported
	}
	actual, _, err := inspect.ReadFor(ctx, pool, a.schema, desired)
	if err != nil {
		return nil, fmt.Errorf("reading the database state: %w", err)
	}
	return planner.Plan(desired, actual, planner.Options{Schema: a.schema}), nil
}
