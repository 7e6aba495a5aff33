package migrations_test

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/pgtest"
	"github.com/pgseq/pgseq/migrations"
)

// BenchmarkPairedWithBase compares the runtime functions of the latest
// migration with those of a base version (the one before it, or
// PGSEQ_PAIRED_BASE), call by call: two schemas with the same
// configuration and tasks, one whose functions are redefined as the base
// version had them, drained by the same loop in one session, alternating
// a call on one with a call on the other (ABBA), so that both share every
// moment of the machine's noise. It reports the time per 200 tasks on each
// and their ratio (latest / base) per variant:
//
//	go test ./migrations -run '^$' -bench PairedWithBase -benchtime 1x
//
// Variants: baseline (one unlimited type: claim → complete), types100
// (the same over 100 unlimited types: what a batch over many types costs
// without limits), enabled (100 types limited to 10, a backlog:
// complete_and_take hands each unit on) and many (1,000 types limited to
// 1,000 that never bind: claim → complete_and_take gives the units back).
// Only function bodies are swapped: a migration that changes tables or
// indexes is measured with pgseq bench drain and two builds instead. Both
// schemas are drained once before the rounds that count: a schema's first
// drain runs 10-20% slower than its later ones.
func BenchmarkPairedWithBase(b *testing.B) {
	base := migrations.Latest() - 1
	if s := os.Getenv("PGSEQ_PAIRED_BASE"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(b, err, "PGSEQ_PAIRED_BASE must be a schema version")
		base = v
	}
	variants := []struct {
		name         string
		types, limit int
		take         bool // complete_and_take (else complete)
	}{
		{"baseline", 1, 0, false},
		{"types100", 100, 0, false},
		{"enabled", 100, 10, true},
		{"many", 1000, 1000, true},
	}
	const tasks, rounds = 20000, 3
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			types := make([]catalog.TaskType, v.types)
			for j := range types {
				types[j] = task(fmt.Sprintf("paired.%04d", j), v.limit)
			}
			cfg := state(queueCfg("q"), types...)
			latest, old := newRT(b, cfg), newRT(b, cfg)
			defineAsOf(b, old, base)
			pair := [2]*pairedRun{{r: old}, {r: latest}}
			for _, p := range pair {
				p.r.register("w")
				p.take = v.take
			}
			var ratios []float64
			for round := 0; round <= rounds; round++ {
				for _, p := range pair {
					p.seed(types, tasks)
				}
				runPaired(b, pair, tasks)
				if round == 0 {
					continue // the warm-up drain
				}
				ratios = append(ratios, pair[1].perBatch()/pair[0].perBatch())
				b.Logf("round %d: base %.3f ms, latest %.3f ms per 200 tasks: %.3fx",
					round, pair[0].perBatch(), pair[1].perBatch(), ratios[len(ratios)-1])
			}
			logSum := 0.0
			for _, r := range ratios {
				logSum += math.Log(r)
			}
			b.ReportMetric(math.Exp(logSum/float64(len(ratios))), "latest/base")
			b.ReportMetric(pair[0].perBatch(), "base-ms/200tasks")
			b.ReportMetric(pair[1].perBatch(), "latest-ms/200tasks")
		})
	}
}

// defineAsOf redefines r's functions as they were at version: it migrates
// a scratch schema to it and recreates each of its functions in r's schema.
func defineAsOf(b *testing.B, r *rt, version int) {
	b.Helper()
	scratch := pgtest.Schema(b)
	tx, err := r.Pool.Begin(bg)
	require.NoError(b, err)
	defer tx.Rollback(bg) //nolint:errcheck // rolled back after a failure only
	_, err = migrations.UpTo(bg, tx, scratch, version)
	require.NoError(b, err)
	rows, err := tx.Query(bg, `
		SELECT pg_get_functiondef(p.oid) FROM pg_proc p
		WHERE p.pronamespace = $1::regnamespace AND p.prokind = 'f'`, pgx.Identifier{scratch}.Sanitize())
	require.NoError(b, err)
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(b, err)
	from, to := pgx.Identifier{scratch}.Sanitize(), pgx.Identifier{r.Schema}.Sanitize()
	// A function whose arguments changed since version (offer_units gained
	// one in migration 038) would stay beside the one recreated below, and
	// every call the old bodies make to it would be ambiguous: the latest
	// schema's overloads of the base's functions that the base lacks go
	// first (bodies are not checked against them: no dependency is lost).
	rows, err = tx.Query(bg, `
		SELECT p.oid::regprocedure::text FROM pg_proc p
		WHERE p.pronamespace = $1::regnamespace AND p.prokind = 'f'
		  AND p.proname IN (SELECT b.proname FROM pg_proc b WHERE b.pronamespace = $2::regnamespace)
		  AND NOT EXISTS (SELECT 1 FROM pg_proc b
		                  WHERE b.pronamespace = $2::regnamespace AND b.proname = p.proname
		                    AND pg_get_function_identity_arguments(b.oid) = pg_get_function_identity_arguments(p.oid))`,
		to, from)
	require.NoError(b, err)
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(b, err)
	for _, fn := range stale {
		// fn is regprocedure output: schema-qualified and quoted by the server.
		if _, err := tx.Exec(bg, `DROP FUNCTION `+fn); err != nil {
			b.Fatalf("dropping %s, which version %d does not have: %v", fn, version, err)
		}
	}
	for _, def := range defs {
		def = strings.ReplaceAll(strings.ReplaceAll(def, from, to), scratch, r.Schema)
		if _, err := tx.Exec(bg, def); err != nil {
			b.Fatalf("redefining a function as of version %d: %v (the migrations since change more than function bodies: compare two builds with pgseq bench drain)", version, err)
		}
	}
	_, err = tx.Exec(bg, `DROP SCHEMA `+from+` CASCADE`)
	require.NoError(b, err)
	require.NoError(b, tx.Commit(bg))
}

// pairedRun is one side of BenchmarkPairedWithBase: its schema, the tasks
// a completion handed it, and the time and tasks of the current round.
type pairedRun struct {
	r       *rt
	take    bool
	next    []int64
	elapsed time.Duration
	done    int
}

// seed deletes the last round's tasks and enqueues n, spread evenly over
// types, then vacuums and checkpoints so that each round starts alike.
func (p *pairedRun) seed(types []catalog.TaskType, n int) {
	p.r.Exec(`DELETE FROM {{schema}}.tasks`)
	names := make([]string, n)
	for i := range names {
		names[i] = types[i%len(types)].Name
	}
	for i := 0; i < n; i += 10000 {
		p.r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, names[i:min(i+10000, n)])
	}
	p.r.Exec(`VACUUM ANALYZE {{schema}}.tasks`)
	// Without the privilege (superuser or pg_checkpoint) the rounds start
	// with whatever the last one left to write: both sides alike.
	_, _ = p.r.Pool.Exec(bg, `CHECKPOINT`)
	p.next, p.elapsed, p.done = nil, 0, 0
}

// perBatch is the round's time per 200 tasks, in milliseconds.
func (p *pairedRun) perBatch() float64 {
	return float64(p.elapsed.Microseconds()) / 1000 * 200 / float64(max(p.done, 1))
}

// step runs one call: a claim of 200 when it holds no handed tasks, then
// the completion of what it holds. It reports false once the queue is
// empty.
func (p *pairedRun) step(b *testing.B) bool {
	start := time.Now()
	defer func() { p.elapsed += time.Since(start) }()
	ids := p.next
	if len(ids) == 0 {
		rows, err := p.r.Pool.Query(bg, p.r.SQL(`SELECT id FROM {{schema}}.claim('q', 'w', 200)`))
		require.NoError(b, err)
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(b, err)
		if len(ids) == 0 {
			return false
		}
	}
	p.next = nil
	if !p.take {
		var n int
		require.NoError(b, p.r.Pool.QueryRow(bg, p.r.SQL(`SELECT {{schema}}.complete($1, 'w')`), ids).Scan(&n))
		p.done += n
		return true
	}
	rows, err := p.r.Pool.Query(bg, p.r.SQL(`SELECT completed, id FROM {{schema}}.complete_and_take($1, 'w', 200)`), ids)
	require.NoError(b, err)
	var completed int
	var id *int64
	_, err = pgx.ForEachRow(rows, []any{&completed, &id}, func() error {
		if id != nil {
			p.next = append(p.next, *id)
		}
		return nil
	})
	require.NoError(b, err)
	p.done += completed
	return true
}

// runPaired drains both sides, a call on each in turn, the order swapped
// every step (ABBA), until both are empty.
func runPaired(b *testing.B, pair [2]*pairedRun, tasks int) {
	more := [2]bool{true, true}
	for i := 0; more[0] || more[1]; i++ {
		for _, k := range [2]int{i % 2, 1 - i%2} {
			if more[k] {
				more[k] = pair[k].step(b)
			}
		}
		if i > 20*tasks/200 {
			b.Fatalf("the drains did not end after %d steps (%d and %d of %d tasks done)", i, pair[0].done, pair[1].done, tasks)
		}
	}
	for _, p := range pair {
		require.Equal(b, tasks, p.done, "every task completed once")
	}
}
