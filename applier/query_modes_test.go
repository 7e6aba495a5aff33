package applier_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/reconcile"
)

// Behind a pooler in transaction mode (PgBouncer before 1.21) prepared
// statements cannot be kept, and pgx is told default_query_exec_mode=exec or
// simple_protocol: plan and apply send every parameter typed and encoded,
// so they work in every mode.
func TestPlanAndApplyInEveryQueryExecMode(t *testing.T) {
	t.Parallel()
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
			require.NoError(t, err)
			cfg.ConnConfig.DefaultQueryExecMode = mode
			cfg.MaxConns = 4
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			schema := pgtest.Schema(t)
			ctx := context.Background()
			opts := applier.Options{Client: "test", Version: "test"}

			res, err := reconcile.PlanAndApply(ctx, pool, schema, config(10), opts, nil)
			require.NoError(t, err)
			require.NotZero(t, res.HistoryID, "the apply's history row was written")
			_, err = reconcile.PlanAndApply(ctx, pool, schema, config(3), opts, nil) // a lowered limit: slots rewritten
			require.NoError(t, err)
			p, err := reconcile.Plan(ctx, pool, schema, config(3))
			require.NoError(t, err)
			require.True(t, p.Empty())
		})
	}
}
