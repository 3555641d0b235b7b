package forest

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// This file is a deliberately naive probability forest written from the
// description of ranger 0.14.1's TreeProbability (splitNodeInternal,
// findBestSplit, findBestSplitValueSmallQ, addToTerminalNodes) and
// ForestProbability::predictInternal, extended by MIA as Fit documents:
// a node is a list of in-bag sample IDs with repeats, every candidate
// column's distinct values are found by sorting, every split is counted
// from scratch. It shares nothing with the grower but the random draws
// (the bootstrap and the candidate order), so the two must grow the same
// trees and predict the same bits.

// refNode is a node of a reference tree.
type refNode struct {
	feat        int // −1 for a leaf
	thr         float64
	naSide      int // MIA: side NA takes
	kids        [2]*refNode
	fracs       []float64 // leaf: class fractions
	left, right int       // in-bag entries of the children (for naSide when no NA was seen)
}

// refForest is a reference probability forest.
type refForest struct {
	trees []*refNode
	k     int
}

// refGrower holds a reference tree's settings and draws.
type refGrower struct {
	X        *mat.Dense
	y        []int
	k, mtry  int
	minNode  int
	maxDepth int
	mia      bool
	r        draw
}

// refFitClass grows the reference forest with FitClass's draws: two
// seeds per tree from rng, then each tree's bootstrap and candidate
// columns from a PCG seeded with them.
func refFitClass(X *mat.Dense, y []float64, k int, p Params, rng *rand.Rand) refForest {
	n, d := X.Dims()
	seeds := make([][2]uint64, p.NumTrees)
	for i := range seeds {
		seeds[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	cls := make([]int, n)
	for i, v := range y {
		cls[i] = int(v)
	}
	f := refForest{k: k}
	for _, s := range seeds {
		r := draw{rand.NewPCG(s[0], s[1])}
		rows := p.bootstrap(n, r)
		g := refGrower{X: X, y: cls, k: k, mtry: p.mtry(d), minNode: p.classMinNode(), maxDepth: p.MaxDepth,
			mia: p.Strategy != noMissing, r: r}
		f.trees = append(f.trees, g.grow(rows, 0))
	}
	return f
}

// grow grows the node holding sample IDs ids (repeats allowed).
func (g *refGrower) grow(ids []int, depth int) *refNode {
	if len(ids) <= g.minNode || (g.maxDepth > 0 && depth >= g.maxDepth) || g.pure(ids) {
		return g.leaf(ids)
	}
	nd, ok := g.bestSplit(ids)
	if !ok {
		return g.leaf(ids)
	}
	var sides [2][]int
	for _, id := range ids {
		sides[g.side(nd, g.X.At(id, nd.feat))] = append(sides[g.side(nd, g.X.At(id, nd.feat))], id)
	}
	nd.left, nd.right = len(sides[0]), len(sides[1])
	if nd.naSide < 0 { // no NA seen: the larger child, child 0 on a tie
		nd.naSide = 0
		if nd.right > nd.left {
			nd.naSide = 1
		}
	}
	nd.kids[0] = g.grow(sides[0], depth+1)
	nd.kids[1] = g.grow(sides[1], depth+1)
	return nd
}

// side is the child a value goes to.
func (g *refGrower) side(nd *refNode, x float64) int {
	switch {
	case math.IsNaN(x):
		return nd.naSide
	case x <= nd.thr:
		return 0
	}
	return 1
}

// pure reports whether every sample has the first one's class.
func (g *refGrower) pure(ids []int) bool {
	for _, id := range ids {
		if g.y[id] != g.y[ids[0]] {
			return false
		}
	}
	return true
}

// leaf returns a leaf with the class fractions of ids.
func (g *refGrower) leaf(ids []int) *refNode {
	cnt := make([]float64, g.k)
	for _, id := range ids {
		cnt[g.y[id]]++
	}
	for j := range cnt {
		cnt[j] /= float64(len(ids))
	}
	return &refNode{feat: -1, fracs: cnt}
}

// candidates draws mtry columns as the grower does (a partial
// Fisher–Yates shuffle of 0..d−1, in the order drawn).
func (g *refGrower) candidates() []int {
	_, d := g.X.Dims()
	feats := make([]int, d)
	for j := range feats {
		feats[j] = j
	}
	for i := range min(g.mtry, d-1) {
		k := i + g.r.intN(d-i)
		feats[i], feats[k] = feats[k], feats[i]
	}
	return feats[:g.mtry]
}

// refScore is ranger's decrease of a split into the left and right
// samples, computed as findBestSplitValueSmallQ does: the sums of
// squared class counts accumulated in double, class by class.
func (g *refGrower) refScore(left, right []int) float64 {
	cl, cr := make([]float64, g.k), make([]float64, g.k)
	for _, id := range left {
		cl[g.y[id]]++
	}
	for _, id := range right {
		cr[g.y[id]]++
	}
	var sl, sr float64
	for j := range g.k {
		sl += 1.0 * cl[j] * cl[j]
		sr += 1.0 * cr[j] * cr[j]
	}
	return sr/float64(len(right)) + sl/float64(len(left))
}

// bestSplit tries every candidate column's splits from scratch; it
// returns the best with naSide −1 when the node has no NA in its column.
func (g *refGrower) bestSplit(ids []int) (*refNode, bool) {
	best, bestDec := (*refNode)(nil), math.Inf(-1)
	try := func(nd *refNode) {
		var parts [2][]int
		for _, id := range ids {
			s := g.side(nd, g.X.At(id, nd.feat))
			parts[s] = append(parts[s], id)
		}
		if len(parts[0]) == 0 || len(parts[1]) == 0 {
			return
		}
		if dec := g.refScore(parts[0], parts[1]); dec > bestDec {
			best, bestDec = nd, dec
		}
	}
	for _, j := range g.candidates() {
		var vals []float64
		hasNA := false
		for _, id := range ids {
			if v := g.X.At(id, j); math.IsNaN(v) {
				hasNA = true
			} else {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for i := 0; i+1 < len(vals); i++ {
			thr := (vals[i] + vals[i+1]) / 2 // ranger's mid-point, or the lower value if it rounds to the upper
			if thr == vals[i+1] {
				thr = vals[i]
			}
			if !hasNA || !g.mia {
				try(&refNode{feat: j, thr: thr, naSide: -1})
				continue
			}
			try(&refNode{feat: j, thr: thr, naSide: 0})
			try(&refNode{feat: j, thr: thr, naSide: 1})
		}
		if hasNA && g.mia && len(vals) > 0 {
			try(&refNode{feat: j, thr: math.Inf(1), naSide: 1})
		}
	}
	return best, best != nil
}

// predict returns the n × k probabilities of the reference forest:
// each row's leaf fractions summed in tree order, then divided by the
// number of trees, as ranger's predictInternal.
func (f refForest) predict(X *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	out := mat.NewDense(n, f.k, nil)
	for i := range n {
		row := out.RawRowView(i)
		for _, t := range f.trees {
			nd := t
			for nd.feat >= 0 {
				x := X.At(i, nd.feat)
				switch {
				case math.IsNaN(x):
					nd = nd.kids[nd.naSide]
				case x <= nd.thr:
					nd = nd.kids[0]
				default:
					nd = nd.kids[1]
				}
			}
			for j, v := range nd.fracs {
				row[j] += v
			}
		}
		for j := range row {
			row[j] /= float64(len(f.trees))
		}
	}
	return out
}

// numNodes counts the nodes of every tree.
func (f refForest) numNodes() int {
	var count func(*refNode) int
	count = func(nd *refNode) int {
		if nd.feat < 0 {
			return 1
		}
		return 1 + count(nd.kids[0]) + count(nd.kids[1])
	}
	total := 0
	for _, t := range f.trees {
		total += count(t)
	}
	return total
}
