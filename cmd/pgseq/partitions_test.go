package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

const keysConfig = `
queue "default" {}
task "digest" {
  partition {
    by          = "payload.tenant_id"
    concurrency = %d
  }
}
`

// A partitioned type end to end: status shows its keys and the longest
// waits; a plan lowering its per-key limit shows the keys at the limit and
// those that would drain, in text and JSON.
func TestPartitionedTypeInStatusAndPlan(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, fmt.Sprintf(keysConfig, 3)))
	require.Equal(t, 0, r.code, r.stderr)
	// acme: 3 running, 2 waiting for 5 minutes; globex: 3 running, 1
	// waiting for 40 minutes; initech: 1 running.
	for _, sql := range []string{
		`SELECT {{schema}}.enqueue('digest', '{"tenant_id": "acme"}', run_at => now() - interval '5 minutes') FROM generate_series(1, 5)`,
		`SELECT {{schema}}.enqueue('digest', '{"tenant_id": "globex"}', run_at => now() - interval '40 minutes') FROM generate_series(1, 4)`,
		`SELECT {{schema}}.enqueue('digest', '{"tenant_id": "initech"}')`,
		`SELECT {{schema}}.register_worker('w1', 'host-1', 10)`,
		`SELECT count(*) FROM {{schema}}.claim('default', 'w1', 10)`,
	} {
		c.Exec(sql)
	}

	r = c.run("status")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("pgseq status:\n%s", r.stdout)
	require.Regexp(t, `(?m)^  default\s+3\s+0\s+3\s+0\s+7\s+0\s+0\s+40m(\d+s)?$`, r.stdout)
	require.Regexp(t, `(?m)^  digest\s+default\s+3\s+3\s+2\s+3\s+40m(\d+s)?\s+binding$`, r.stdout)
	require.Contains(t, r.stdout, "digest: 2 keys at the per-key limit of 3; 3 due tasks wait for a unit of their key. Longest waits:")
	require.Regexp(t, `(?m)^    globex\s+3/3\s+1\s+40m(\d+s)?$`, r.stdout)
	require.Regexp(t, `(?m)^    acme\s+3/3\s+2\s+5m(\d+s)?$`, r.stdout)

	r = c.run("status", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		Partitions []struct {
			TaskType     string `json:"task_type"`
			Limit        int
			Keys         struct{ Value int64 }
			LongestWaits []struct{ Key string } `json:"longest_waits"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Len(t, doc.Partitions, 1)
	require.Equal(t, 3, doc.Partitions[0].Limit)
	require.EqualValues(t, 3, doc.Partitions[0].Keys.Value)
	require.Len(t, doc.Partitions[0].LongestWaits, 2)
	require.Equal(t, "globex", doc.Partitions[0].LongestWaits[0].Key)

	// Lowering the per-key limit to 2: acme and globex hold 3 units each.
	lower := writeConfig(t, fmt.Sprintf(keysConfig, 2))
	r = c.run("plan", lower)
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("pgseq plan:\n%s", r.stdout)
	require.Contains(t, r.stdout, `# task "digest" will be updated in place (7 running, 3 partition keys, 2 at the limit of 3, 2 over the new limit of 2)`)
	require.Contains(t, r.stdout, "~ concurrency = 3 -> 2  # 2 keys over, draining")
	require.Contains(t, r.stdout, "# 2 partition keys hold more units than the new per-key limit of 2: draining; each admits no task until fewer than 2 of its units are in use")

	r = c.run("plan", "--json", lower)
	require.Equal(t, 0, r.code, r.stderr)
	var p struct {
		Changes []struct {
			Context map[string]int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &p), r.stdout)
	require.Len(t, p.Changes, 1)
	require.Equal(t, map[string]int{"running": 7, "keys": 3, "keys_at_limit": 2, "keys_over_limit": 2}, p.Changes[0].Context)

	// Applied, the keys drain: status says so, and the next plan warns.
	r = c.run("apply", "--auto-approve", lower)
	require.Equal(t, 0, r.code, r.stderr)
	r = c.run("status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^  digest\s+default\s+2\s+3\s+2\s+3\s+40m(\d+s)?\s+draining$`, r.stdout)
	require.Contains(t, r.stdout, "digest: draining after a lowered per-key limit: 2 keys hold more units than the limit of 2 and admit nothing until below it")
	r = c.run("plan", lower)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `task "digest": 2 partition keys still draining (holding more units than the per-key limit of 2)`)
}
