package inspect_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// Read counts each task type's partition keys with work by units in use
// (Live.Keys): keys whose tasks all wait hold 0, keys at the per-key limit
// hold it; a type without keys has no entry.
func TestReadCountsPartitionKeysByUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := catalog.DefaultQueue("default")
	render := catalog.TaskType{Name: "render", Queue: "default", Partition: &catalog.Partition{Concurrency: 2}}
	plain := catalog.TaskType{Name: "plain", Queue: "default"}
	tests := []struct {
		name string
		// limit is render's type limit (0: none): with a limit of 1, one
		// task holds a key's unit and the type's, the others wait.
		limit int
		keys  []string
		want  map[string]catalog.KeyUses
	}{
		{name: "no keys"},
		{
			name: "keys at the limit and below",
			keys: []string{"a", "a", "a", "b", "b", "c"},
			want: map[string]catalog.KeyUses{"render": {{Used: 1, Keys: 1}, {Used: 2, Keys: 2}}},
		},
		{
			name:  "keys under a type limit",
			limit: 1,
			keys:  []string{"a", "a", "a", "b", "c"},
			// Each key admits its tasks up to 2, whatever the type's limit.
			want: map[string]catalog.KeyUses{"render": {{Used: 1, Keys: 2}, {Used: 2, Keys: 1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := render
			r.Concurrency = tt.limit
			d := pgseqtest.NewDB(t, catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{r, plain}})
			for _, k := range tt.keys {
				d.Exec(`SELECT {{schema}}.enqueue('render', partition_key => $1)`, k)
			}
			d.Exec(`SELECT {{schema}}.enqueue('plain', partition_key => 'ignored')`)
			s, _, err := inspect.Read(ctx, d.Pool, d.Schema)
			require.NoError(t, err)
			require.Equal(t, tt.want, s.Live.Keys)
		})
	}
}

// A schema before per-key limits (version 18) reads with no keys.
func TestReadKeysBeforePartitions(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.Pool(t), pgtest.Schema(t)
	pgseqtest.MigrateTo(t, pool, schema, inspect.PartitionsVersion-1)
	s, version, err := inspect.Read(context.Background(), pool, schema)
	require.NoError(t, err)
	require.Equal(t, inspect.PartitionsVersion-1, version)
	require.Nil(t, s.Live.Keys)
}
