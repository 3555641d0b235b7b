package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// grower holds the state of one Fit.
type grower struct {
	ctx    context.Context
	p      Params
	s      *sample
	rng    *rand.Rand
	t      *Model
	crit   criterion // least squares (anova) or Gini (class)
	alpha  float64   // CP times the root's risk
	iscale float64   // largest improve seen so far (rpart's rounding guard)
	feats  []int     // candidate columns scratch
	inv    []float64 // inv[k] = 1/k, k = 0..n (inv[0] unused)
}

// grow splits node id, owning positions [lo, hi), and its descendants
// depth first, child with the lower mean first, with rpart's
// cost-complexity bookkeeping (partition.c): a node is not split when it
// is too small, too deep, or cannot beat alpha; after its children are
// grown its complexity is recomputed and the split is undone when that
// complexity is ≤ alpha. It returns the subtree's sum of squares and its
// number of splits.
func (g *grower) grow(id int32, lo, hi, depth int) (float64, int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, 0, fmt.Errorf("tree: fit interrupted: %w", err)
	}
	value, risk := g.crit.summarise(id, lo, hi)
	nd := &g.t.nodes[id]
	nd.mean, nd.risk = value, risk
	nd.n, nd.depth = int32(hi-lo), int32(depth)
	bound := nd.risk
	if id == 0 {
		nd.complexity = nd.risk
	} else {
		bound = min(bound, nd.complexity)
	}
	n := hi - lo
	if n < g.p.MinSplit || n < g.p.MinNodeSize || n < 2 || bound <= g.alpha ||
		(g.p.MaxDepth > 0 && depth >= g.p.MaxDepth) {
		nd.complexity = g.alpha
		return nd.risk, 0, nil
	}
	c, ok := g.bestSplit(lo, hi, nd.mean, nd.risk)
	if !ok {
		nd.complexity = g.alpha
		return nd.risk, 0, nil
	}
	n0, n1 := g.applySplit(id, c, lo, hi)
	return g.growChildren(id, c, lo, n0, n1, depth, bound)
}

// growChildren grows the two children of id (positions [lo, lo+n0) and
// [lo+n0, lo+n0+n1)) and settles id's complexity.
func (g *grower) growChildren(id int32, c cand, lo, n0, n1, depth int, bound float64) (float64, int, error) {
	// On collapse everything appended for this split is dropped: the
	// children's subtrees and this node's own surrogates.
	nodesMark, surMark := len(g.t.nodes), int(g.t.nodes[id].surLo)
	c0 := g.t.addNode()
	c1 := g.t.addNode()
	g.t.nodes[id].child = [2]int32{c0, c1}
	first, second := c1, c0
	flo, fhi, slo, shi := lo+n0, lo+n0+n1, lo, lo+n0
	g.t.nodes[id].first = 1
	if c.firstLow {
		first, second = c0, c1
		flo, fhi, slo, shi = lo, lo+n0, lo+n0, lo+n0+n1
		g.t.nodes[id].first = 0
	}
	risk := g.t.nodes[id].risk
	g.t.nodes[first].complexity = bound - g.alpha
	lr, ls, err := g.grow(first, flo, fhi, depth+1)
	if err != nil {
		return 0, 0, err
	}
	b := max((risk-lr)/float64(ls+1), risk-g.t.nodes[first].risk)
	b = min(b, g.t.nodes[id].complexity)
	g.t.nodes[second].complexity = b - g.alpha
	rr, rs, err := g.grow(second, slo, shi, depth+1)
	if err != nil {
		return 0, 0, err
	}
	f, sc := g.t.nodes[first], g.t.nodes[second]
	lr, ls, rr, rs = collapseWeakest(risk, subtree{lr, ls, f.risk, f.complexity}, subtree{rr, rs, sc.risk, sc.complexity})
	nd := &g.t.nodes[id]
	nd.complexity = (risk - (lr + rr)) / float64(ls+rs+1)
	if nd.complexity <= g.alpha {
		// The split does not pay for itself: undo it.
		g.t.nodes, g.t.surr = g.t.nodes[:nodesMark], g.t.surr[:surMark]
		nd.makeLeaf()
		return nd.risk, 0, nil
	}
	return lr + rr, ls + rs + 1, nil
}

// subtree summarises a grown child for the weakest-link update: the sum
// of squares and number of splits of its subtree, its own sum of squares
// as a leaf, and its complexity.
type subtree struct {
	risk       float64
	splits     int
	leafRisk   float64
	complexity float64
}

// collapseWeakest is rpart's update of a node's complexity from its two
// children (partition.c): the node's complexity is the average risk drop
// per split of its subtree, except that a child whose own complexity is
// lower collapses first (counts as a leaf), then possibly the other. It
// returns the risks and split counts to use for the two children.
func collapseWeakest(risk float64, a, b subtree) (float64, int, float64, int) {
	cx := func() float64 { return (risk - (a.risk + b.risk)) / float64(a.splits+b.splits+1) }
	if b.complexity > a.complexity {
		if cx() > a.complexity {
			a.risk, a.splits = a.leafRisk, 0
			if cx() > b.complexity {
				b.risk, b.splits = b.leafRisk, 0
			}
		}
	} else if cx() > b.complexity {
		b.risk, b.splits = b.leafRisk, 0
		if cx() > a.complexity {
			a.risk, a.splits = a.leafRisk, 0
		}
	}
	return a.risk, a.splits, b.risk, b.splits
}

// bestSplit searches the candidate columns of node [lo, hi) with the
// strategy's criterion.
func (g *grower) bestSplit(lo, hi int, mean, risk float64) (cand, bool) {
	var best cand
	found := false
	for _, j := range g.candidates() {
		var c cand
		var ok bool
		if g.p.Strategy == MIA {
			c, ok = g.crit.scanMIA(j, lo, hi, mean, risk)
		} else {
			c, ok = g.crit.scanAvailable(j, lo, hi, risk)
		}
		if !ok {
			continue
		}
		g.iscale = max(g.iscale, c.improve)
		if c.improve > g.iscale*1e-10 && (!found || c.better(best)) {
			best, found = c, true
		}
	}
	return best, found
}

// candidates returns the columns searched at a node: all of them, or
// Mtry drawn without replacement from the random source, in column order.
func (g *grower) candidates() []int {
	d := g.s.d
	g.feats = g.feats[:0]
	for j := range d {
		g.feats = append(g.feats, j)
	}
	if g.p.Mtry == 0 || g.p.Mtry >= d {
		return g.feats
	}
	for i := range g.p.Mtry {
		k := i + g.rng.IntN(d-i)
		g.feats[i], g.feats[k] = g.feats[k], g.feats[i]
	}
	out := g.feats[:g.p.Mtry]
	slices.Sort(out)
	return out
}

// applySplit stores split c in node id, decides where every entry of
// [lo, hi) goes under the strategy, and partitions the columns. It
// returns the sizes of child 0 and child 1.
func (g *grower) applySplit(id int32, c cand, lo, hi int) (int, int) {
	s := g.s
	nd := &g.t.nodes[id]
	nd.feature, nd.threshold, nd.improve = int32(c.feature), c.thr, c.improve
	t0, t1 := g.markSides(c, lo, hi)
	nNA := hi - lo - t0 - t1
	nd.naSeen = nNA > 0
	nd.obs = [2]int32{int32(t0), int32(t1)}
	nd.naSide = g.naSide(c, lo, hi, nd.mean, t0, t1)
	if t0+t1 > 0 {
		nd.pLeft = float64(t0) / float64(t0+t1)
	}
	if g.p.Strategy == Surrogate {
		var sur []surrogate
		if g.p.MaxSurrogate > 0 {
			sur = g.findSurrogates(c, lo, hi, t0, t1)
		}
		nd.surLo = int32(len(g.t.surr))
		g.t.surr = append(g.t.surr, sur...)
		nd.surHi = int32(len(g.t.surr))
		g.routeSurrogate(lo, hi, sur, t0, t1)
		return s.partition(lo, hi)
	}
	for _, e := range s.idx[0][lo:hi] {
		switch {
		case s.side[e] != sideNA:
			s.dest[e] = s.side[e] - 1
		case g.p.Strategy == Prob:
			s.dest[e] = 1
			if g.rng.Float64() < nd.pLeft {
				s.dest[e] = 0
			}
		default:
			s.dest[e] = nd.naSide
		}
	}
	return s.partition(lo, hi)
}

// naSide returns the side the fixed-direction strategies send NA rows to
// at split c: MIA's scored side, Block's error-minimising side, or the
// larger side (ties to child 0) for Majority and whenever the node had no
// NA on the split column. Surrogate's training-time majority (ties: no
// side) is handled by routeSurrogate.
func (g *grower) naSide(c cand, lo, hi int, mean float64, t0, t1 int) int8 {
	larger := naLeft
	if t1 > t0 {
		larger = naRight
	}
	nNA := hi - lo - t0 - t1
	switch {
	case nNA == 0:
		return larger
	case g.p.Strategy == MIA:
		return c.naSide
	case g.p.Strategy == Block:
		return g.crit.blockSide(c, lo, hi, mean)
	}
	return larger
}

// rootAlpha returns CP times the root's sum of squares, rpart's alpha.
func rootAlpha(cp, risk float64) float64 {
	if math.IsInf(cp*risk, 0) {
		return math.Inf(1)
	}
	return cp * risk
}
