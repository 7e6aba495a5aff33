package pgseqtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

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

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

// RequireSchemasGone fails while a schema named after the DB's is left,
// and passes once it is dropped.
func TestRequireSchemasGone(t *testing.T) {
	t.Parallel()
	rec := &fatalRecorder{TB: t}
	d := pgseqtest.New(rec)
	d.RequireSchemasGone()
	require.Empty(t, rec.fatal)

	run := pgx.Identifier{d.Schema + "_run1"}.Sanitize()
	d.Exec(`CREATE SCHEMA ` + run)
	t.Cleanup(func() {
		_, err := d.Pool.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+run)
		require.NoError(t, err)
	})
	d.RequireSchemasGone()
	require.Equal(t, "schemas named after "+d.Schema+" are left: "+d.Schema+"_run1", rec.fatal)

	rec.fatal = ""
	d.Exec(`DROP SCHEMA ` + run)
	d.RequireSchemasGone()
	require.Empty(t, rec.fatal)
}
