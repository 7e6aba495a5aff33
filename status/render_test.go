package status

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
)

// fixture is a snapshot with something of everything, taken at a fixed
// clock.
func fixture() *Snapshot {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return at.Add(-d) }
	ptr := func(t time.Time) *time.Time { return &t }
	f64 := func(f float64) *float64 { return &f }
	est := func(n int64) *int64 { return &n }
	age := func(d time.Duration, exact bool) *Age { return &Age{At: ago(d), Seconds: d.Seconds(), Exact: exact} }
	tasks := int64(2_450_112)
	return &Snapshot{
		FormatVersion: FormatVersion, Schema: "pgseq", SchemaVersion: 6, At: at, CountLimit: DefaultLimit,
		TasksEstimate: &tasks,
		Queues: []Queue{
			{
				Name:       "default",
				Pending:    Count{Value: 20_012, Estimate: est(1_300_000)},
				Due:        Count{Value: 20_000, Estimate: est(1_292_500)},
				Ready:      Count{Value: 10_000, Estimate: est(1_196_500)},
				Waiting:    Count{Value: 10_000, Estimate: est(96_000)},
				Scheduled:  exact(12),
				Running:    exact(180),
				Failed:     Count{Value: 3, Estimate: est(41)},
				DeadLetter: Count{Value: 17},
				OldestDue:  age(3*time.Hour+12*time.Minute, true),
			},
			{
				Name:       "media",
				Pending:    exact(1_347),
				Due:        exact(1_343),
				Ready:      exact(0),
				Waiting:    exact(1_343),
				Scheduled:  exact(4),
				Running:    exact(6),
				Failed:     exact(0),
				DeadLetter: exact(2),
				OldestDue:  age(95*time.Second, true),
			},
			{
				Name: "reports", Pending: exact(0), Due: exact(0), Ready: exact(0), Waiting: exact(0),
				Scheduled: exact(0), Running: exact(0), Failed: exact(0), DeadLetter: exact(0),
			},
		},
		Limits: []Limit{
			{
				TaskType: "media:thumbnail", Queue: "media", Limit: 100, Running: exact(0), SlotGroups: 50,
				Capacity: 100, Used: 3, Free: 97, DrainingGroups: []SlotGroup{},
				Waiting: exact(2), OldestWaiting: age(2*time.Second, true), State: "admitting",
			},
			{
				TaskType: "media:transcode.4k", Queue: "media", Limit: 4, Running: exact(6), SlotGroups: 6,
				Capacity: 4, Used: 6, Free: 0, Draining: true,
				DrainingGroups: []SlotGroup{{5, 0, 1}, {6, 0, 1}},
				Waiting:        exact(38), OldestWaiting: age(95*time.Second, true), Binding: true, State: "draining",
			},
			{
				TaskType: "render", Queue: "media", Limit: 0, Running: exact(0), SlotGroups: 1,
				Capacity: 0, Used: 1, DrainingGroups: []SlotGroup{{1, 0, 1}}, Draining: true,
				Waiting: exact(0), State: "draining",
			},
			{
				TaskType: "video:encode", Queue: "media", Limit: 10, Running: exact(10), SlotGroups: 10,
				Capacity: 10, Used: 10, Free: 0, DrainingGroups: []SlotGroup{},
				Waiting: exact(1_300), OldestWaiting: age(80*time.Second, true), Binding: true, State: "binding",
			},
			{
				TaskType: "webhook", Queue: "default", Limit: 500, Running: exact(180), SlotGroups: 50,
				Capacity: 500, Used: 180, Free: 320, DrainingGroups: []SlotGroup{}, Waiting: exact(0), State: "ok",
			},
		},
		Partitions: []Partition{
			{
				TaskType: "digest", Queue: "default", Limit: 2, By: "tenant_id",
				Keys: Count{Value: 10_000, Estimate: est(12_400)}, AtLimit: Count{Value: 1_830}, OverLimit: Count{Value: 0},
				Waiting: Count{Value: 10_000, Estimate: est(96_000)}, OldestWaiting: age(12*time.Minute+5*time.Second, false),
				LongestWaits: []KeyWait{
					{Key: "tenant-0042", Used: 2, Waiting: exact(1_204), Oldest: *age(12*time.Minute+5*time.Second, false)},
					{Key: "tenant-0107", Used: 2, Waiting: exact(310), Oldest: *age(9*time.Minute+40*time.Second, false)},
					{Key: "acme corp\n", Used: 2, Waiting: exact(1), Oldest: *age(4*time.Minute+2*time.Second, false)},
				},
				KeysProbed: 1_000, WaitsCapped: true, State: "binding",
			},
			{
				TaskType: "media:transcode.4k", Queue: "media", Limit: 1,
				Keys: exact(6), AtLimit: exact(4), OverLimit: exact(2), Waiting: exact(3),
				OldestWaiting: age(50*time.Second, true),
				LongestWaits: []KeyWait{
					{Key: "customer-9", Used: 2, Waiting: exact(2), Oldest: *age(50*time.Second, true)},
					{Key: "customer-3", Used: 1, Waiting: exact(1), Oldest: *age(20*time.Second, true)},
				},
				KeysProbed: 4, State: "draining",
			},
			{
				TaskType: "webhook", Queue: "default", Limit: 5, By: "endpoint",
				Keys: exact(38), AtLimit: exact(0), OverLimit: exact(0), Waiting: exact(0),
				LongestWaits: []KeyWait{}, State: "ok",
			},
		},
		Workers: Workers{
			TimeoutSeconds: 30, Alive: 2, Late: 1, Dead: 12,
			List: []Worker{
				{ID: "api-7f9c-1", Hostname: "api-7f9c", PoolSize: 50, Version: "v1.4.0", StartedAt: ago(26 * time.Hour),
					LastHeartbeat: ago(4 * time.Second), HeartbeatAgeSeconds: 4, State: "alive", Running: 180, Leader: true},
				{ID: "media-2b1d-1", Hostname: "media-2b1d", PoolSize: 8, Version: "v1.4.0", StartedAt: ago(3 * time.Hour),
					LastHeartbeat: ago(2 * time.Second), HeartbeatAgeSeconds: 2, State: "alive", Running: 16},
				{ID: "media-9e0a-1", Hostname: "media-9e0a", PoolSize: 8, StartedAt: ago(5 * time.Hour),
					LastHeartbeat: ago(47 * time.Second), HeartbeatAgeSeconds: 47, State: "late"},
				{ID: "media-c3f2-1", Hostname: "media-c3f2", PoolSize: 8, StartedAt: ago(9 * time.Hour),
					LastHeartbeat: ago(2*time.Hour + 5*time.Minute), HeartbeatAgeSeconds: (2*time.Hour + 5*time.Minute).Seconds(),
					State: "dead", DeadAt: ptr(ago(2 * time.Hour))},
			},
		},
		Leader: &Leader{WorkerID: "api-7f9c-1", LeaseUntil: ptr(at.Add(11 * time.Second)), Live: true,
			LeaseLeftSeconds: f64(11.4), ElectedAt: ptr(ago(26 * time.Hour)), WorkerState: "alive"},
		Counters: []Counter{
			{Name: "invoice_number", Kind: "standalone", Scopes: exact(1), Highest: &Count{Value: 1_042, Exact: true},
				TwoPhase: true, PendingReservations: exact(3), OldestReservation: age(40*time.Second, true)},
			{Name: "issue_key", Kind: "attached", Table: "app.issues", Column: "number",
				Scopes: Count{Value: 10_000, Estimate: est(48_200)}, Highest: &Count{Value: 88_310},
				PendingReservations: exact(0)},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, Render(&out, fixture(), RenderOptions{}))
	require.NotContains(t, out.String(), "\x1b[", "no colour unless asked")
	golden.Check(t, filepath.Join("testdata", "status.txt"), out.String())
}

func TestRenderEmpty(t *testing.T) {
	t.Parallel()
	s := &Snapshot{FormatVersion: FormatVersion, Schema: "pgseq", SchemaVersion: 6, Queue: "media",
		At: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), CountLimit: DefaultLimit, Workers: Workers{TimeoutSeconds: 30}}
	var out bytes.Buffer
	require.NoError(t, Render(&out, s, RenderOptions{}))
	golden.Check(t, filepath.Join("testdata", "empty.txt"), out.String())
}

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, fixture().Write(&out))
	golden.Check(t, filepath.Join("testdata", "status.json"), out.String())

	// It reads back to the same snapshot; one line with WriteLine.
	var back Snapshot
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	require.Equal(t, fixture().Queues, back.Queues)
	var line bytes.Buffer
	require.NoError(t, fixture().WriteLine(&line))
	require.Equal(t, 1, strings.Count(line.String(), "\n"))
	require.JSONEq(t, out.String(), line.String())
}

func TestRenderColor(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, Render(&out, fixture(), RenderOptions{Color: true}))
	s := out.String()
	require.Contains(t, s, "\x1b[31mbinding\x1b[0m")
	require.Contains(t, s, "\x1b[31mdraining\x1b[0m")
	require.Contains(t, s, "\x1b[33mlate\x1b[0m")
	require.Contains(t, s, "\x1b[1mQUEUES\x1b[0m")
	// Colour does not move the columns: without the codes the text is the same.
	var plain bytes.Buffer
	require.NoError(t, Render(&plain, fixture(), RenderOptions{}))
	require.Equal(t, plain.String(), stripANSI(s))
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 950: "950", 1000: "1k", 1049: "1k", 1050: "1.1k", 48_200: "48k",
		999_499: "999k", 1_000_000: "1M", 1_250_000: "1.3M", 9_960_000: "10M", 2_000_000_000: "2G"} {
		require.Equal(t, want, compact(n), "%d", n)
	}
	for s, want := range map[float64]string{-3: "0s", 0.4: "0s", 45: "45s", 60: "1m", 192: "3m12s", 3600: "1h",
		7500: "2h5m", 86400*3 + 3600*4 + 59: "3d4h"} {
		require.Equal(t, want, duration(s), "%v", s)
	}

	c := Count{Value: 10, Exact: false}
	c.setEstimate(5)
	require.Nil(t, c.Estimate, "an estimate below the lower bound tells nothing")
	c.setEstimate(50)
	require.EqualValues(t, 50, *c.Estimate)
	sum := c.Add(exact(7))
	require.Equal(t, int64(17), sum.Value)
	require.False(t, sum.Exact)
	require.EqualValues(t, 57, *sum.Estimate)
	require.Equal(t, exact(9), exact(2).Add(exact(7)))
	require.Equal(t, Count{Value: 5}, capped(6, 5))
	require.Equal(t, exact(5), capped(5, 5))
}
