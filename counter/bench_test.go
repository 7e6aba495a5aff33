package counter_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/scenarios"
)

var (
	benchOut      = flag.String("counters.out", "../results", `directory BenchmarkCounters writes counters.json and counters.md to ("" writes nothing)`)
	benchRounds   = flag.Int("counters.rounds", 6, "BenchmarkCounters: rounds of every case")
	benchDuration = flag.Duration("counters.duration", time.Second, "BenchmarkCounters: how long each run inserts")
)

// BenchmarkCounters runs the counters scenario once (whatever b.N is):
// attached counter vs plain bigserial, one hot scope with 1, 8 and 64
// clients, advisory_lock beside counter_table at 1,000 and 100,000 rows per
// scope, interleaved over rounds. With the defaults (6 rounds of 1s runs)
// it takes about a minute and a half:
//
//	go test -run '^$' -bench Counters ./counter
//	go test -run '^$' -bench Counters ./counter -args -counters.rounds 5 -counters.out ''
func BenchmarkCounters(b *testing.B) {
	cfg, err := dbconn.ParseConfig(pgtest.ConnString(b), "pgseq bench counters")
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 4
	ctx := context.Background()
	admin, err := dbconn.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()

	rep, err := scenarios.RunCounters(ctx, scenarios.CountersOptions{
		Pool: admin, Rounds: *benchRounds, Duration: *benchDuration, SchemaPrefix: "bench_counters",
		Progress: func(p scenarios.CounterProgress) {
			if p.Run == nil {
				b.Logf("%s", p.Step)
				return
			}
			b.Logf("%s %-20s %8.0f inserts/s  p50 %v  p99 %v", p.Step, p.Run.Case, p.Run.InsertsPerSec,
				time.Duration(p.Run.Latency.P50*1e3).Round(time.Microsecond), time.Duration(p.Run.Latency.P99*1e3).Round(time.Microsecond))
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range rep.Cases {
		b.ReportMetric(c.Median, string(c.Case)+"_ins/s")
	}
	for _, c := range rep.Comparisons {
		b.ReportMetric(c.Ratio.Median, fmt.Sprintf("%s/%s", c.Numerator, c.Denominator))
	}
	for _, c := range rep.Checks {
		b.Logf("%s: %s (target %s, met: %v)", c.Name, c.Measured, c.Target, c.Met)
	}
	if *benchOut == "" {
		return
	}
	if err := os.MkdirAll(*benchOut, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, write := range map[string]func(io.Writer) error{
		"counters.json": rep.WriteJSON,
		"counters.md":   rep.WriteMarkdown,
	} {
		path := filepath.Join(*benchOut, name)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := write(f); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote %s", path)
	}
}
