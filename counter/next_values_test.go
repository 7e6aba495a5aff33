package counter_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// next_values numbers a long list of scopes named several times each, in
// any order: each scope's numbers rise in input order from its start, one
// number per time it is named, and a NULL scope is the empty one (as in
// next_value). Its cost is linear in the list (migration 026; the
// benchmark next_values_scopes shows it).
func TestNextValuesNumbersEachScopeInInputOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Apply(counters(standalone("ledger", 7)))

	rng := rand.New(rand.NewPCG(1, 2))
	var scopes []*string
	for i := 0; i < 3000; i++ {
		s := strconv.Itoa(rng.IntN(1000))
		scopes = append(scopes, &s)
	}
	empty := ""
	scopes = append(scopes, nil, &empty, nil)
	rng.Shuffle(len(scopes), func(i, j int) { scopes[i], scopes[j] = scopes[j], scopes[i] })

	rows, err := e.Pool.Query(bg, e.SQL(`SELECT * FROM {{schema}}.next_values('ledger', $1)`), scopes)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)

	next := map[string]int64{}
	want := make([]int64, len(scopes))
	for i, s := range scopes {
		key := ""
		if s != nil {
			key = *s
		}
		if _, ok := next[key]; !ok {
			next[key] = 7
		}
		want[i] = next[key]
		next[key]++
	}
	require.Equal(t, want, got)

	// The next call continues every scope where this one left it.
	var v int64
	e.Scalar(&v, `SELECT {{schema}}.next_value('ledger', '')`)
	require.Equal(t, next[""], v)
}
