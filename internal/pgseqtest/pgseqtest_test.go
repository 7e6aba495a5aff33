package pgseqtest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/plan"
)

func TestNewSchemaAppliesAndApplyConverges(t *testing.T) {
	t.Parallel()
	cfg := catalog.State{
		Queues:    []catalog.Queue{catalog.DefaultQueue("default")},
		TaskTypes: []catalog.TaskType{{Name: "render", Queue: "default", Concurrency: 4}},
	}
	pool, schema := pgseqtest.NewSchema(t, cfg)
	s, _, err := inspect.Read(context.Background(), pool, schema)
	require.NoError(t, err)
	require.Len(t, s.Queues, 1)
	require.Len(t, s.TaskTypes, 1)

	cfg.TaskTypes[0].Concurrency = 8
	res := pgseqtest.Apply(t, pool, schema, cfg)
	require.Equal(t, plan.Summary{Change: 1}, res.Summary)
	require.Zero(t, pgseqtest.Apply(t, pool, schema, cfg).HistoryID, "nothing left to apply")
}
