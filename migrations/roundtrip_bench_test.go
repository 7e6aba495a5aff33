package migrations_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
)

// BenchmarkClaimCompleteRoundTrip measures one claim of 10 tasks and their
// completion through the SQL API, on a queue without limits and on queues
// with 1,000 limited task types: limits that do not bind (1,000 each: the
// claimed tasks hold units taken at enqueue, completions give them back) and
// limits that bind (1 each: every completion hands its unit to the type's
// next waiting task). The claim reads no slot row in either case, so its
// cost must not grow with the number of limited types. The variants run
// interleaved, roundTripRounds rounds:
//
//	go test -run '^$' -bench ClaimCompleteRoundTrip -benchtime 1000x ./migrations
//
// Target: 1,000 limited types at most 2× the unlimited queue's time per
// round trip.
func BenchmarkClaimCompleteRoundTrip(b *testing.B) {
	variants := []struct {
		name  string
		types int
		limit int
	}{
		{"unlimited", 1, 0},
		{"1000_types_limit_1000", 1000, 1000},
		{"1000_types_limit_1", 1000, 1},
	}
	type setup struct {
		r                     *rt
		types                 []catalog.TaskType
		claimSQL, completeSQL string
	}
	setups := make([]setup, len(variants))
	for i, v := range variants {
		types := make([]catalog.TaskType, v.types)
		for j := range types {
			types[j] = task(fmt.Sprintf("t%04d", j), v.limit)
		}
		r := newRT(b, state(queueCfg("q"), types...))
		r.register("w")
		setups[i] = setup{r: r, types: types,
			claimSQL:    r.SQL(`SELECT id FROM {{schema}}.claim('q', 'w', 10)`),
			completeSQL: r.SQL(`SELECT {{schema}}.complete($1, 'w')`)}
	}
	// topUp seeds enough pending tasks for n round trips (b.Run calls its
	// function again with a larger b.N).
	topUp := func(st setup, n int) {
		var pending int
		st.r.Scalar(&pending, `SELECT count(*) FROM {{schema}}.tasks WHERE status = 'pending'`)
		if need := 10*n + 10*len(st.types) - pending; need > 0 {
			names := make([]string, need)
			for i := range names {
				names[i] = st.types[i%len(st.types)].Name
			}
			st.r.Exec(`SELECT count(*) FROM {{schema}}.enqueue_batch($1)`, names)
			st.r.Exec(`ANALYZE {{schema}}.tasks`)
		}
	}
	// Rounds of every variant in turn (A B C A B C …), so that they share
	// the machine's noise; benchstat pools a name's rounds.
	for round := 0; round < roundTripRounds; round++ {
		for i, v := range variants {
			st := setups[i]
			b.Run(v.name, func(b *testing.B) {
				topUp(st, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rows, err := st.r.Pool.Query(bg, st.claimSQL)
					require.NoError(b, err)
					var ids []int64
					for rows.Next() {
						var id int64
						require.NoError(b, rows.Scan(&id))
						ids = append(ids, id)
					}
					require.NoError(b, rows.Err())
					if len(ids) == 0 {
						b.Fatalf("the queue ran dry after %d round trips (%v)", i, st.r.StatusCounts())
					}
					var n int
					require.NoError(b, st.r.Pool.QueryRow(bg, st.completeSQL, ids).Scan(&n))
					require.Equal(b, len(ids), n)
				}
			})
		}
	}
}

// roundTripRounds is how many interleaved rounds of every variant
// BenchmarkClaimCompleteRoundTrip runs.
const roundTripRounds = 5
