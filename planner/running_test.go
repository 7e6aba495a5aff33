package planner

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/render"
)

// The human view names the running tasks of a change in its header, beside
// the limit and in the reasons; all of them must show the one figure of the
// change's context, whatever the slot rows say (issue 7, defect 10: a plan
// printed "(0 running)" and "4 running: 1 over the new limit").
func TestPlanShowsOneRunningFigure(t *testing.T) {
	t.Parallel()
	q := catalog.DefaultQueue("media")
	tests := []struct {
		name    string
		running int
		used    []int // per slot group of the old limit 500
		limit   int   // the new limit
	}{
		{name: "slot rows count more than running", running: 0, used: []int{2, 2}, limit: 3},
		{name: "running counts more than slot rows", running: 6, used: nil, limit: 4},
		{name: "both agree", running: 7, used: []int{3, 4}, limit: 4},
	}
	runningRE := regexp.MustCompile(`(\d+) running`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			actual := catalog.State{
				Queues:    []catalog.Queue{q},
				TaskTypes: []catalog.TaskType{{Name: "render", Queue: "media", Concurrency: 500}},
				Slots:     slots("render", 500, tt.used...),
				Live:      catalog.Live{Running: map[string]int{"render": tt.running}},
			}
			desired := catalog.State{Queues: []catalog.Queue{q}, TaskTypes: []catalog.TaskType{{Name: "render", Queue: "media", Concurrency: tt.limit}}}
			p := Plan(desired, actual, Options{Schema: "pgseq"})
			var out bytes.Buffer
			require.NoError(t, render.Plan(&out, p))
			matches := runningRE.FindAllStringSubmatch(out.String(), -1)
			require.NotEmpty(t, matches, out.String())
			for _, m := range matches {
				require.Equal(t, strconv.Itoa(tt.running), m[1], "every running figure is the context's:\n%s", out.String())
			}
			if tt.running > tt.limit {
				require.Contains(t, out.String(), "over the new limit", out.String())
			} else {
				require.NotContains(t, out.String(), "over the new limit", out.String())
			}
		})
	}
}
