package scenarios

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/scenarios/report"
)

// Reports of one round on one CPU read in the singular.
func TestReportsCountInTheSingular(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	drain := &DrainReport{Settings: DrainSettings{Tasks: 1, Rounds: 1, Workers: 1, PoolSize: 1, BatchSize: 1, FlushSize: 1},
		Environment: report.Environment{NumCPU: 1}}
	require.NoError(t, drain.WriteMarkdown(&md))
	for _, want := range []string{"1 no-op task per run", "by 1 in-process worker (", "flushed every 1 task or", "1 round, variants", "; 1 CPU ("} {
		require.Contains(t, md.String(), want)
	}

	md.Reset()
	counters := &CountersReport{Settings: CountersSettings{Rounds: 1}, Environment: report.Environment{NumCPU: 1}}
	require.NoError(t, counters.WriteMarkdown(&md))
	for _, want := range []string{"; 1 round after", "; 1 CPU ("} {
		require.Contains(t, md.String(), want)
	}
}
