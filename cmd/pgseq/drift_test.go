package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A slot group's capacity edited and another group deleted by hand: pgseq
// plan names both, before -> after, in the drift section before the
// actions, and in the JSON's drift array; apply repairs them, and the plan
// after shows neither drift nor changes.
func TestPlanShowsDriftAndApplyRepairsIt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	cfg := writeConfig(t, limit10)
	r := c.run("apply", "--auto-approve", cfg)
	require.Equal(t, 0, r.code, r.stderr)

	c.Exec(`UPDATE {{schema}}.concurrency_slots SET capacity = 5 WHERE task_type = 'render' AND slot_group = 2`)
	c.Exec(`DELETE FROM {{schema}}.concurrency_slots WHERE task_type = 'render' AND slot_group = 7`)

	r = c.run("plan", "--detailed-exitcode", cfg)
	require.Equal(t, exitChanges, r.code, r.stderr)
	want := `Note: Objects have changed outside of pgseq

pgseq detected the following changes made outside of pgseq since the last
pgseq apply:

  # task "render" has changed
  ~ task "render" {
      ~ slot_group 2 {
          ~ capacity = 1 -> 5
        }
      - slot_group 7 {
          - capacity = 1
        }
    }

Unless the configuration now declares the same, the actions below undo these
changes: apply brings the database back to the configuration.

pgseq will perform the following actions:
`
	require.True(t, strings.HasPrefix(r.stdout, want), r.stdout)

	r = c.run("plan", "--json", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		Drift []struct {
			Address string
			Action  string
			Slots   []struct {
				Group  int  `json:"slot_group"`
				Before *int `json:"capacity_before"`
				After  *int `json:"capacity_after"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Len(t, doc.Drift, 1)
	require.Equal(t, `task "render"`, doc.Drift[0].Address)
	require.Equal(t, "update", doc.Drift[0].Action)
	require.Len(t, doc.Drift[0].Slots, 2)
	s2, s7 := doc.Drift[0].Slots[0], doc.Drift[0].Slots[1]
	require.Equal(t, []any{2, 1, 5}, []any{s2.Group, *s2.Before, *s2.After})
	require.Equal(t, 7, s7.Group)
	require.Equal(t, 1, *s7.Before)
	require.Nil(t, s7.After)

	r = c.run("apply", "--auto-approve", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Note: Objects have changed outside of pgseq")
	require.Contains(t, r.stdout, "Apply complete! 0 added, 1 changed, 0 destroyed.")
	var capacity, groups int
	c.Row(`SELECT sum(capacity), count(*) FROM {{schema}}.concurrency_slots WHERE task_type = 'render'`, nil, &capacity, &groups)
	require.Equal(t, []int{10, 10}, []int{capacity, groups}, "repaired")

	r = c.run("plan", "--detailed-exitcode", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "No changes. The database matches the configuration.\n", r.stdout)
}

// Drift the configuration already declares: plan shows it with no change
// (exit 0 with --detailed-exitcode), and apply records the state so that
// it is reported once.
func TestApplyRecordsDriftTheConfigurationDeclares(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, limit10))
	require.Equal(t, 0, r.code, r.stderr)
	c.Exec(`UPDATE {{schema}}.queues SET batch_size = 50 WHERE name = 'default'`)
	cfg := writeConfig(t, "queue \"default\" {\n  batch_size = 50\n}\ntask \"render\" { concurrency = 10 }\n")

	r = c.run("plan", "--detailed-exitcode", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "~ batch_size = 100 -> 50")
	require.Contains(t, r.stdout, "No changes. The database matches the configuration.")

	r = c.run("apply", "--auto-approve", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Recorded the database as it is")
	var applies int
	c.Scalar(&applies, `SELECT count(*) FROM {{schema}}.applies`)
	require.Equal(t, 2, applies)

	r = c.run("plan", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "No changes. The database matches the configuration.\n", r.stdout)
}
