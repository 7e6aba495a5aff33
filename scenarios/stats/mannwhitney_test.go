package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMannWhitneyP(t *testing.T) {
	t.Parallel()
	// Complete separation of 5 and 5: 2 assignments of C(10,5) = 252.
	require.InDelta(t, 2.0/252, MannWhitneyP([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}), 1e-12)
	require.InDelta(t, 2.0/252, MannWhitneyP([]float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}), 1e-12)
	require.InDelta(t, 2.0/252, MannWhitneyMinP(5, 5), 1e-12)
	// 3 and 3: at best 2/20.
	require.InDelta(t, 0.1, MannWhitneyP([]float64{1, 2, 3}, []float64{4, 5, 6}), 1e-12)
	require.InDelta(t, 0.1, MannWhitneyMinP(3, 3), 1e-12)
	require.InDelta(t, 1.0, MannWhitneyMinP(2, 2)*3, 1e-12, "2 and 2: 2/6")
	// Interleaved: no evidence at all.
	require.InDelta(t, 1.0, MannWhitneyP([]float64{1, 4, 5, 8}, []float64{2, 3, 6, 7}), 1e-12)
	require.Equal(t, 1.0, MannWhitneyP([]float64{3, 3, 3}, []float64{3, 3, 3}), "all tied")
	require.Equal(t, 1.0, MannWhitneyP(nil, []float64{1}))

	// Ties take their mean rank: x = {1, 2}, y = {2, 3} have ranks
	// {1, 2.5} and {2.5, 4}; of the 6 assignments of two ranks to x, 4 are
	// at least as far from the mean rank sum (5) as 3.5: p = 4/6.
	require.InDelta(t, 4.0/6, MannWhitneyP([]float64{1, 2}, []float64{2, 3}), 1e-12)

	// The exact distribution and the normal approximation agree for
	// moderately large samples.
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := make([]float64, 30), make([]float64, 30)
	for i := range xs {
		xs[i] = rng.NormFloat64()
		ys[i] = rng.NormFloat64() + 0.8
	}
	exact := MannWhitneyP(xs, ys)
	n1, n2, w, ties := mannWhitneyRanks(xs, ys)
	require.InDelta(t, exact, mannWhitneyNormalP(n1, n2, w, ties), 0.01)
	require.Less(t, exact, 0.2)
	// Beyond the exact limit the approximation is used.
	big := append(append([]float64{}, xs...), xs...)
	require.InDelta(t, 1.0, MannWhitneyP(big, big), 1e-12)
	require.Less(t, MannWhitneyP(big, append(append([]float64{}, ys...), ys...)), exact)
}
