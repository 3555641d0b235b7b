package tree

import "math"

// scanMIA scores every MIA split of column j on all the node's entries
// with rpart's weighted Gini score (w·I, see scanAvailable): each
// threshold with the NA entries joined to child 0 and to child 1, then
// "observed vs NA". The gain is the node's score minus the split's; the
// largest positive gain wins, the first one on ties (lower threshold, NA
// left before NA right, "observed vs NA" last), as for least squares.
func (c *gini) scanMIA(j, lo, hi int, _, _ float64) (cand, bool) {
	s := c.g.s
	k := s.observed(j, lo, hi)
	nNA := hi - lo - k
	vals, ids := s.val[j][lo:hi], s.idx[j][lo:hi]
	left, right, na := c.left, c.right, c.rest
	c.countGroups(ids, k)
	node, _ := c.groupCost(right, na)
	m := miaBest{c: c, node: node, best: cand{feature: j, naSide: naNone}, where: -2}
	minb := c.g.p.MinBucket
	for i := 0; i < k-1; i++ {
		y := c.y[ids[i]]
		left[y]++
		right[y]--
		if vals[i+1] == vals[i] {
			continue
		}
		nl, nr := i+1, k-i-1
		switch {
		case nNA == 0 && nl >= minb && nr >= minb:
			m.consider(left, nil, right, nil, i, naNone)
		case nNA == 0:
		default:
			if nl+nNA >= minb && nr >= minb {
				m.consider(left, na, right, nil, i, naLeft)
			}
			if nl >= minb && nr+nNA >= minb {
				m.consider(left, nil, right, na, i, naRight)
			}
		}
	}
	if k >= max(minb, 1) && nNA >= max(minb, 1) {
		m.consider(left, right, na, nil, -1, naRight) // observed (left + right) vs NA
	}
	return c.finishMIA(m.best, m.where, vals)
}

// countGroups clears c.left and sets c.right and c.rest to the class
// counts of the observed entries ids[:k] and of the NA entries ids[k:].
func (c *gini) countGroups(ids []int32, k int) {
	clear(c.left)
	clear(c.right)
	clear(c.rest)
	for p, e := range ids {
		if p < k {
			c.right[c.y[e]]++
		} else {
			c.rest[c.y[e]]++
		}
	}
}

// miaBest is the best MIA candidate of a column so far; where is its
// boundary (-2 none yet, -1 "observed vs NA").
type miaBest struct {
	c     *gini
	node  float64 // the node's score
	best  cand
	where int
}

// consider scores the split of the node into child 0 (class counts a0 +
// a1) and child 1 (b0 + b1; nil adds nothing) and keeps it if its gain is
// strictly the largest so far.
func (m *miaBest) consider(a0, a1, b0, b1 []float64, where int, side int8) {
	ca, ma := m.c.groupCost(a0, a1)
	cb, mb := m.c.groupCost(b0, b1)
	if g := m.node - (ca + cb); g > m.best.gain {
		m.best.gain, m.where, m.best.naSide, m.best.firstLow = g, where, side, ma < mb
	}
}

// finishMIA sets the threshold of the best MIA candidate (where: -2 none,
// -1 "observed vs NA", else the boundary after vals[where]).
func (c *gini) finishMIA(best cand, where int, vals []float64) (cand, bool) {
	switch where {
	case -2:
		return cand{}, false
	case -1:
		best.thr = math.Inf(1)
	default:
		best.thr = midpoint(vals[where], vals[where+1])
	}
	best.improve = best.gain
	return best, true
}

// groupCost returns the weighted Gini score w·Σ p_j(1 − p_j) of the group
// whose class counts are a + b (b nil: a alone), with w its
// altered-prior weight and p_j = aprior_j·n_j/w, and its mean class code
// Σ j·p_j; an empty group scores 0.
func (c *gini) groupCost(a, b []float64) (cost, mean float64) {
	var w float64
	for j, n := range a {
		if b != nil {
			n += b[j]
		}
		w += float64(c.aprior[j] * n)
	}
	if w == 0 {
		return 0, 0
	}
	for j, n := range a {
		if b != nil {
			n += b[j]
		}
		p := c.aprior[j] * n / w
		cost += float64(w * float64(p*(1-p)))
		mean += float64(p * float64(j))
	}
	return cost, mean
}

// blockSide sends the NA block of split c to the side leaving the smaller
// total Gini score, ties to child 0.
func (c *gini) blockSide(sp cand, lo, hi int, _ float64) int8 {
	s := c.g.s
	left, right, na := c.left, c.right, c.rest
	clear(left)
	clear(right)
	clear(na)
	vals, ids := s.val[sp.feature][lo:hi], s.idx[sp.feature][lo:hi]
	for p, e := range ids {
		switch v := vals[p]; {
		case math.IsNaN(v):
			na[c.y[e]]++
		case v < sp.thr:
			left[c.y[e]]++
		default:
			right[c.y[e]]++
		}
	}
	l0, _ := c.groupCost(left, na)
	r0, _ := c.groupCost(right, nil)
	l1, _ := c.groupCost(left, nil)
	r1, _ := c.groupCost(right, na)
	if l1+r1 < l0+r0 {
		return naRight
	}
	return naLeft
}
