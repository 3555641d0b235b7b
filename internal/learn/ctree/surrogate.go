package ctree

import (
	"math"
	"slices"
)

// surrogates appends to g.t.surr up to MaxSurrogate surrogate splits of
// the primary split on column primary, as partykit's .extree_surrogates
// does. On the rows of the node observing the primary variable (g.side
// ≥ 0), each other variable is tested for association with the primary
// split's indicator g.z (the quadratic test of quadTest; libcoin's
// two-column indicator response gives the same statistic, and is exactly
// 0 where zeroIfNull says so); variables are
// ranked by log(1 − p) without adjustment, and for each in turn the cut
// maximising the two-sample statistic (no bucket constraint) is kept,
// oriented so that "x ≤ u" goes where most of its rows went under the
// primary split. As in partykit, the search stops at the first variable
// admitting no cut.
func (g *grower) surrogates(primary int, rows []int32) {
	obs := g.scratch[:0]
	for _, r := range rows {
		if g.side[r] >= 0 {
			obs = append(obs, r)
		}
	}
	tests := make([]VarTest, len(g.cols))
	for j, x := range g.cols {
		if j != primary {
			tests[j] = quadTest(j, x, g.z, obs)
			zeroIfNull(&tests[j], x, obs, 2, func(c int, r int32) float64 { return indicator((g.z[r] == 1) == (c == 0)) })
		}
	}
	crit := surrogateCriteria(tests, primary)
	for range min(len(g.cols)-1, g.p.MaxSurrogate) {
		j := lastMax(crit)
		if j == primary || !tests[j].Tested {
			return
		}
		thr, ok := g.cut.best(j, g.z, obs, 0)
		if !ok {
			return
		}
		var agree, disagree int
		for _, r := range obs {
			if v := g.cols[j][r]; v == v && v <= thr {
				if g.side[r] == 0 {
					agree++
				} else {
					disagree++
				}
			}
		}
		g.t.surr = append(g.t.surr, surrogate{feature: j, thr: thr, lowLeft: agree >= disagree})
		crit[j] = math.Inf(-1)
	}
}

// surrogateCriteria returns log(1 − p) per column (−Inf when untested),
// with partykit's surrogate tie-break: criteria within ε of the maximum
// get order(log statistic)[i]/(1000·Σ index) added, R's order() and not
// rank(), exactly as partykit does.
func surrogateCriteria(tests []VarTest, primary int) []float64 {
	crit := make([]float64, len(tests))
	top := math.Inf(-1)
	for j := range tests {
		crit[j] = math.Inf(-1)
		if j != primary && tests[j].Tested {
			crit[j] = tests[j].Criterion
			top = max(top, crit[j])
		}
	}
	var ties []int
	var sum float64
	for j := range tests {
		if j != primary && tests[j].Tested && math.Abs(crit[j]-top) < eps {
			ties = append(ties, j)
			sum += frameIndex(j)
		}
	}
	if len(ties) < 2 {
		return crit
	}
	ord := make([]int, len(ties)) // R's order(stat[ties]), 0-based, stable
	for k := range ord {
		ord[k] = k
	}
	slices.SortStableFunc(ord, func(a, b int) int {
		sa, sb := logStat(&tests[ties[a]]), logStat(&tests[ties[b]])
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	for k, j := range ties {
		crit[j] += float64(ord[k]+1) / (sum * 1000)
	}
	return crit
}

// lastMax is partykit's .which.max: the last index of the maximum.
func lastMax(v []float64) int {
	best := 0
	for i := range v {
		if v[i] >= v[best] {
			best = i
		}
	}
	return best
}
