package ctree

import (
	"math"
	"slices"
)

// sqrtXmin is sqrt(.Machine$double.xmin), partykit's tolerance for ties
// of the primary criterion.
var sqrtXmin = math.Sqrt(0x1p-1022)

// eps is .Machine$double.eps, the floor of reported statistics and
// partykit's tolerance for ties of the surrogate criterion.
const eps = 0x1p-52

// frameIndex is the model-frame column of feature j in partykit's
// ctree(y ~ ., data): the response is column 1, x_j column j + 2. The
// tie-break bump divides by the sum of these indices.
func frameIndex(j int) float64 { return float64(j + 2) }

// logStat is partykit's stored statistic log(max(c, ε)).
func logStat(t *VarTest) float64 { return math.Log(max(t.Statistic, eps)) }

// adjust turns the log(1 − p) criteria of the tested variables into
// Bonferroni-adjusted ones (k·log(1 − p), k the number tested), sets
// AdjPValue, and reports k.
func adjust(tests []VarTest, tt TestType) int {
	k := 0
	for i := range tests {
		if tests[i].Tested {
			k++
		}
	}
	for i := range tests {
		t := &tests[i]
		if !t.Tested {
			continue
		}
		if tt == Bonferroni {
			t.Criterion *= float64(k)
		}
		t.AdjPValue = -math.Expm1(t.Criterion)
	}
	return k
}

// breakTies reproduces partykit's .extree_node tie-break: variables whose
// criterion is within sqrt(double.xmin) of the maximum (typically all with
// p-values underflowing to 0) get rank(log statistic)/(1000·Σ index)
// added, so the larger statistic wins.
func breakTies(tests []VarTest) {
	top := math.Inf(-1)
	for i := range tests {
		top = max(top, tests[i].Criterion)
	}
	var ties []int
	var sum float64
	for i := range tests {
		if math.Abs(tests[i].Criterion-top) < sqrtXmin {
			ties = append(ties, i)
			sum += frameIndex(tests[i].Feature)
		}
	}
	if len(ties) < 2 {
		return
	}
	ls := make([]float64, len(ties))
	for k, i := range ties {
		ls[k] = logStat(&tests[i])
	}
	for k, i := range ties {
		tests[i].Criterion += averageRank(ls, k) / (sum * 1000)
	}
}

// averageRank is R's rank(v)[k] with ties averaged.
func averageRank(v []float64, k int) float64 {
	less, equal := 0, 0
	for _, u := range v {
		switch {
		case u < v[k]:
			less++
		case u == v[k]:
			equal++
		}
	}
	return float64(less) + float64(equal+1)/2
}

// candidates returns the variables to try for a split, best first, as
// partykit does: none when no criterion exceeds logMin; otherwise the
// min(#finite criteria, splitTry) largest criteria (equal ones: higher
// column first) that exceed logMin.
func candidates(tests []VarTest, logMin float64, splitTry int) []int {
	order := make([]int, 0, len(tests))
	finite := 0
	for i := range tests {
		if c := tests[i].Criterion; c > logMin {
			order = append(order, i)
		}
		if !math.IsInf(tests[i].Criterion, 0) {
			finite++
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := tests[a].Criterion, tests[b].Criterion
		switch {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return b - a
	})
	return order[:min(len(order), splitTry, finite)]
}
