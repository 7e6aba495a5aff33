package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// mannWhitneyExactLimit is the largest total sample count whose U
// distribution is enumerated exactly; larger samples use the normal
// approximation.
const mannWhitneyExactLimit = 60

// MannWhitneyP returns the two-sided p-value of the Mann–Whitney U test
// (Wilcoxon rank-sum) of xs against ys: the probability, under the
// hypothesis that both come from the same distribution, of a rank sum at
// least as far from its mean as the observed one. Tied values get their
// mean rank. Up to mannWhitneyExactLimit samples in all, the p-value comes
// from the exact distribution of the rank sum over every assignment of
// the pooled ranks (ties included); beyond, from the normal approximation
// with tie and continuity corrections.
func MannWhitneyP(xs, ys []float64) float64 {
	if len(xs) == 0 || len(ys) == 0 {
		return 1
	}
	if len(xs)+len(ys) > mannWhitneyExactLimit {
		return mannWhitneyNormalP(mannWhitneyRanks(xs, ys))
	}
	return mannWhitneyExactP(xs, ys)
}

// mannWhitneyRanks ranks the pooled samples and returns the sample sizes,
// the doubled rank sum of xs (mean ranks of ties are then integers) and
// Σ t³ - t over the groups of t tied values.
func mannWhitneyRanks(xs, ys []float64) (n1, n2, w int, ties float64) {
	_, w, ties = mannWhitneyRanked(xs, ys)
	return len(xs), len(ys), w, ties
}

// mannWhitneyRanked returns the doubled ranks of the pooled samples (in
// sorted order), the doubled rank sum of xs and the tie term.
func mannWhitneyRanked(xs, ys []float64) (ranks []int, w int, ties float64) {
	type obs struct {
		v     float64
		first bool
	}
	pooled := make([]obs, 0, len(xs)+len(ys))
	for _, x := range xs {
		pooled = append(pooled, obs{x, true})
	}
	for _, y := range ys {
		pooled = append(pooled, obs{y, false})
	}
	slices.SortFunc(pooled, func(a, b obs) int { return cmp.Compare(a.v, b.v) })
	n := len(pooled)
	ranks = make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && pooled[j+1].v == pooled[i].v {
			j++
		}
		r := i + j + 2 // ranks i+1..j+1, their mean doubled
		for k := i; k <= j; k++ {
			ranks[k] = r
			if pooled[k].first {
				w += r
			}
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	return ranks, w, ties
}

// mannWhitneyExactP is MannWhitneyP from the exact distribution of the
// rank sum, conditional on the ties observed.
func mannWhitneyExactP(xs, ys []float64) float64 {
	ranks, w, _ := mannWhitneyRanked(xs, ys)
	n1, n := len(xs), len(xs)+len(ys)
	mean := n1 * (n + 1) // doubled
	// counts[k][s] is the number of ways to choose k of the pooled ranks
	// with doubled sum s.
	maxSum := n * (n + 1)
	counts := make([][]float64, n1+1)
	for k := range counts {
		counts[k] = make([]float64, maxSum+1)
	}
	counts[0][0] = 1
	for i, r := range ranks {
		for k := min(i+1, n1); k >= 1; k-- {
			prev, cur := counts[k-1], counts[k]
			for s := maxSum - r; s >= 0; s-- {
				if prev[s] != 0 {
					cur[s+r] += prev[s]
				}
			}
		}
	}
	observed := mannWhitneyAbs(w - mean)
	var tail, total float64
	for s, c := range counts[n1] {
		total += c
		if mannWhitneyAbs(s-mean) >= observed {
			tail += c
		}
	}
	return math.Min(1, tail/total)
}

// mannWhitneyNormalP is MannWhitneyP from the normal approximation of U,
// with the tie correction of its variance and a continuity correction.
func mannWhitneyNormalP(n1, n2, w int, ties float64) float64 {
	n := n1 + n2
	u := float64(w)/2 - float64(n1*(n1+1))/2
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) / 12 * (float64(n+1) - ties/float64(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / sigma
	if z <= 0 {
		return 1
	}
	return math.Min(1, 2*distuv.UnitNormal.Survival(z))
}

// MannWhitneyMinP returns the smallest two-sided p-value the exact test
// can give with samples of n1 and n2 values (no ties): both extreme
// assignments, out of C(n1+n2, n1).
func MannWhitneyMinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2/math.Exp(lc-l1-l2))
}

func mannWhitneyAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FormatPValue writes a p-value with three decimals, "<0.001" below that,
// "–" for none (NaN).
func FormatPValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
