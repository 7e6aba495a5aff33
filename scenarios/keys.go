package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/pgseq/pgseq/scenarios/scenariofile"
)

// keySeed seeds the key sequence: every run of a scenario, and every
// scenario with the same keys block, seeds the same keys in the same
// order, so the runs compared round by round differ only in their
// configuration.
var keySeed = [2]uint64{0x7067736571, 0x6b657973}

// keyName is the name of key i (0-based): k0000001 for the first.
func keyName(i int) string { return fmt.Sprintf("k%07d", i+1) }

// assignKeys returns the key index of each of n tasks, in enqueue order; nil
// when k declares no keys.
func assignKeys(k scenariofile.KeySpec, n int) []int32 {
	if k.Count == 0 {
		return nil
	}
	out := make([]int32, n)
	if k.HotShare == 0 {
		for j := range out {
			out[j] = int32(j % k.Count)
		}
		return out
	}
	cdf := zipfCDF(k.Count, zipfExponent(k.Count, k.HotShare))
	rng := rand.New(rand.NewPCG(keySeed[0], keySeed[1]))
	for j := range out {
		i := sort.SearchFloat64s(cdf, rng.Float64())
		out[j] = int32(min(i, k.Count-1))
	}
	return out
}

// zipfExponent returns the exponent s for which key 1 of count keys with
// weights k^-s has the share hot of the total. hot must be at least
// 1/count (s = 0: every key alike) and at most 1.
func zipfExponent(count int, hot float64) float64 {
	share := func(s float64) float64 {
		var sum float64
		for k := count; k >= 1; k-- { // smallest terms first
			sum += math.Pow(float64(k), -s)
		}
		return 1 / sum
	}
	lo, hi := 0.0, 1.0
	for share(hi) < hot && hi < 64 {
		lo, hi = hi, hi*2
	}
	for range 50 {
		mid := (lo + hi) / 2
		if share(mid) < hot {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// zipfCDF returns the cumulative shares of count keys with weights k^-s.
func zipfCDF(count int, s float64) []float64 {
	cdf := make([]float64, count)
	var sum float64
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return cdf
}
