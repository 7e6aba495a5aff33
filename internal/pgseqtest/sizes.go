package pgseqtest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Sizes parses a comma-separated list of positive sizes, the value of the
// flag named flagName (a size benchmark's -…sizes).
func Sizes(tb testing.TB, flagName, value string) []int {
	tb.Helper()
	var sizes []int
	for _, s := range strings.Split(value, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			tb.Fatalf("-%s: %q is not a positive number", flagName, s)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// BenchRolledBack times sql (with d's placeholders) b.N times, each in a
// transaction rolled back after it, so that every run starts from the same
// tables, and reports the time per item, items being what one run
// handles, as µs/unit: the figure that stays constant across sizes when a
// statement is linear in them.
func (d *DB) BenchRolledBack(b *testing.B, sql string, items int, unit string, args ...any) {
	b.Helper()
	ctx := context.Background()
	var took time.Duration
	for range b.N {
		tx, err := d.Pool.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := tx.Exec(ctx, d.SQL(sql), args...); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		if err := tx.Rollback(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(took.Microseconds())/float64(b.N*items), "µs/"+unit)
}
