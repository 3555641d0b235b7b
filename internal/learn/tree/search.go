package tree

import "math"

// NA sides of a split.
const (
	naLeft  int8 = 0  // NA rows go to child 0
	naRight int8 = 1  // NA rows go to child 1
	naNone  int8 = -1 // not fixed by the criterion (no NA, or strategy decides)
)

// cand is a candidate split: rows with x < thr go to child 0, the others
// to child 1. thr = +Inf is MIA's "observed vs NA" split.
type cand struct {
	feature int
	thr     float64
	gain    float64 // drop in sum of squares of the rows the criterion scores
	improve float64 // gain relative to the node's sum of squares (rpart "improve")
	naSide  int8    // MIA: the side the NA rows were scored on
	// firstLow: child 0 has the lower mean among the scored rows; rpart
	// then calls child 0 its left son and grows it first.
	firstLow bool
}

// better reports whether c beats b. As in rpart, a later variable must be
// strictly better, so ties go to the lower column index (and, within a
// column, to the lower threshold).
func (c cand) better(b cand) bool { return c.improve > b.improve }

// scanAvailable scores the splits of column j on the node's rows that
// observe j (rpart's anova splitting function): candidate thresholds are
// midpoints between consecutive distinct observed values, and both sides
// must hold at least MinBucket observed entries.
func (g *grower) scanAvailable(j, lo, hi int, nodeRisk float64) (cand, bool) {
	s := g.s
	k := s.observed(j, lo, hi)
	vals, ids := s.val[j][lo:lo+k], s.idx[j][lo:lo+k]
	if k < 2 || vals[0] == vals[k-1] {
		return cand{}, false
	}
	var sum float64
	for _, e := range ids {
		sum += s.y[e]
	}
	mean := sum / float64(k)
	minb, inv := g.p.MinBucket, g.inv
	var ls, best, filter float64
	where := -1
	firstLow := false
	for i := 0; k-i > minb; i++ {
		ls += s.y[ids[i]] - mean
		nl := i + 1
		if nl >= minb && vals[i+1] != vals[i] {
			// Cheap bound first (multiplications); rpart's exact
			// expression only for candidates that may beat the best.
			ls2 := ls * ls
			if ls2*(inv[nl]+inv[k-nl]) <= filter {
				continue
			}
			if t := ls2/float64(nl) + ls2/float64(k-nl); t > best {
				best, where, firstLow = t, i, ls < 0
				filter = best * (1 - 1e-12)
			}
		}
	}
	if where < 0 {
		return cand{}, false
	}
	if g.p.Gain == GainPerObserved {
		best *= float64(hi-lo) / float64(k)
	}
	return cand{feature: j, thr: midpoint(vals[where], vals[where+1]), gain: best,
		improve: best / nodeRisk, naSide: naNone, firstLow: firstLow}, true
}

// scanMIA scores every MIA split of column j on all the node's rows:
// each threshold with the NA rows sent to child 0 and to child 1, then
// the split "observed vs NA". Sums are centred on the node mean, so the
// gain of a partition into groups g is Σ_g S_g²/n_g. Ties keep the first
// candidate: lower threshold, NA left before NA right, "observed vs NA"
// last.
func (g *grower) scanMIA(j, lo, hi int, nodeMean, nodeRisk float64) (cand, bool) {
	s := g.s
	k := s.observed(j, lo, hi)
	nNA := hi - lo - k
	vals, ids := s.val[j][lo:hi], s.idx[j][lo:hi]
	sObs, sNA := centredSum(s.y, ids[:k], nodeMean), centredSum(s.y, ids[k:], nodeMean)
	minb, inv := g.p.MinBucket, g.inv
	best, where := cand{feature: j, naSide: naNone}, -2
	consider := func(t float64, i int, side int8, s0 float64) {
		if t > best.gain {
			best.gain, where, best.naSide, best.firstLow = t, i, side, s0 < 0
		}
	}
	var ls float64
	for i := 0; i < k-1; i++ {
		ls += s.y[ids[i]] - nodeMean
		if vals[i+1] == vals[i] {
			continue
		}
		nl, nr := i+1, k-i-1
		rs := sObs - ls
		switch {
		case nNA == 0:
			if nl >= minb && nr >= minb {
				consider(ls*ls*inv[nl]+rs*rs*inv[nr], i, naNone, ls)
			}
			continue
		case nl+nNA >= minb && nr >= minb:
			a := ls + sNA
			consider(a*a*inv[nl+nNA]+rs*rs*inv[nr], i, naLeft, a)
		}
		if nNA > 0 && nl >= minb && nr+nNA >= minb {
			b := rs + sNA
			consider(ls*ls*inv[nl]+b*b*inv[nr+nNA], i, naRight, ls)
		}
	}
	if k >= max(minb, 1) && nNA >= max(minb, 1) {
		consider(sObs*sObs*inv[k]+sNA*sNA*inv[nNA], -1, naRight, sObs)
	}
	switch where {
	case -2:
		return cand{}, false
	case -1:
		best.thr = math.Inf(1)
	default:
		best.thr = midpoint(vals[where], vals[where+1])
	}
	best.improve = best.gain / nodeRisk
	return best, true
}

// centredSum returns Σ (y[e] − mean) over the entries ids.
func centredSum(y []float64, ids []int32, mean float64) float64 {
	var s float64
	for _, e := range ids {
		s += y[e] - mean
	}
	return s
}

// naSums returns, for the split c of column c.feature over [lo, hi), the
// centred target sums and counts of the observed rows below and above
// the threshold and of the NA rows.
func (g *grower) naSums(c cand, lo, hi int, nodeMean float64) (s0, s1, sNA float64, n0, n1, nNA int) {
	s := g.s
	vals, ids := s.val[c.feature][lo:hi], s.idx[c.feature][lo:hi]
	for p, e := range ids {
		d := s.y[e] - nodeMean
		switch v := vals[p]; {
		case math.IsNaN(v):
			sNA += d
			nNA++
		case v < c.thr:
			s0 += d
			n0++
		default:
			s1 += d
			n1++
		}
	}
	return
}

// midpoint returns rpart's split point (a+b)/2 between consecutive
// distinct sorted values a < b, guarded for the two cases where that
// expression misroutes: overflow to ±Inf, and a and b so close that the
// rounded midpoint equals a (then b is returned, so that x < split still
// separates a from b).
func midpoint(a, b float64) float64 {
	m := (a + b) / 2
	if math.IsInf(m, 0) {
		m = a/2 + b/2
	}
	if m <= a {
		m = b
	}
	return m
}
