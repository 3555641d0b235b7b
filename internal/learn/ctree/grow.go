package ctree

import (
	"context"
	"math"
	"math/rand/v2"
)

// grower holds the state of one Fit.
type grower struct {
	ctx     context.Context
	p       Params
	t       *Model
	cols    [][]float64 // column-major copy of X
	h       influence   // the response
	codes   []float64   // classification: the class codes; nil otherwise
	nclass  int         // classification: k, the classes counted per node
	counts  []float64   // classification: counts[id*nclass+q], class q's rows in node id
	rng     *rand.Rand
	rows    []int32   // node rows are rows[lo:hi], ascending within a node
	scratch []int32   // partition and surrogate scratch
	side    []int8    // per row during a split: 0 left, 1 right, -1 NA
	z       []float64 // per row: 1 if the primary split sends it left
	cut     *cutter
	logMin  float64
}

// split is a chosen primary split.
type split struct {
	feature int
	thr     float64
}

// grow grows the subtree on rows[lo:hi] at the given depth and returns
// its root's index. Nodes are appended in preorder (partykit's ids − 1).
func (g *grower) grow(lo, hi, depth int) (int32, error) {
	if err := g.ctx.Err(); err != nil {
		return -1, err
	}
	rows := g.rows[lo:hi]
	var sum float64
	for _, r := range rows {
		sum += g.h.y[r]
	}
	if g.codes != nil {
		g.countClasses(rows)
	}
	id := int32(len(g.t.nodes))
	g.t.nodes = append(g.t.nodes, node{feature: -1, left: -1, right: -1,
		n: int32(len(rows)), depth: int32(depth), value: sum / float64(len(rows))})
	sp, ok := g.findSplit(id, rows, depth)
	if !ok {
		return id, nil
	}
	mid := lo + g.route(id, sp, rows)
	left, err := g.grow(lo, mid, depth+1)
	if err != nil {
		return -1, err
	}
	right, err := g.grow(mid, hi, depth+1)
	if err != nil {
		return -1, err
	}
	g.t.nodes[id].left, g.t.nodes[id].right = left, right
	return id, nil
}

// countClasses appends the class counts of a new node's rows.
func (g *grower) countClasses(rows []int32) {
	lo := len(g.counts)
	g.counts = append(g.counts, make([]float64, g.nclass)...)
	for _, r := range rows {
		g.counts[lo+int(g.codes[r])]++
	}
}

// findSplit tests every variable in the node, records the tests, and
// returns the split of the first candidate variable admitting one.
func (g *grower) findSplit(id int32, rows []int32, depth int) (split, bool) {
	p := g.p
	if (p.MaxDepth > 0 && depth >= p.MaxDepth) || len(rows) < p.MinSplit {
		return split{}, false
	}
	mb := max(float64(p.MinBucket), math.Ceil(float64(len(rows))*p.MinProb))
	lo := len(g.t.tests)
	for j, x := range g.cols {
		g.t.tests = append(g.t.tests, g.h.test(j, x, rows))
	}
	tests := g.t.tests[lo:]
	g.t.nodes[id].testLo, g.t.nodes[id].testHi = int32(lo), int32(len(g.t.tests))
	if adjust(tests, p.TestType) == 0 {
		return split{}, false
	}
	breakTies(tests)
	for _, j := range candidates(tests, g.logMin, p.SplitTry) {
		if thr, ok := g.h.best(g.cut, j, rows, mb); ok {
			return split{feature: j, thr: thr}, true
		}
	}
	return split{}, false
}

// route records split sp in node id, sends every row of the node to a
// side (observed rows by the threshold; NA rows by the surrogates, then
// the Missing rule), partitions rows stably (left first) and returns the
// number of rows sent left.
func (g *grower) route(id int32, sp split, rows []int32) int {
	x := g.cols[sp.feature]
	var nL, nR int
	for _, r := range rows {
		switch v := x[r]; {
		case v != v:
			g.side[r] = -1
		case v <= sp.thr:
			g.side[r], g.z[r] = 0, 1
			nL++
		default:
			g.side[r], g.z[r] = 1, 0
			nR++
		}
	}
	nd := &g.t.nodes[id]
	nd.feature, nd.threshold = int32(sp.feature), sp.thr
	nd.pLeft, nd.naLeft = float64(nL)/float64(nL+nR), nL > nR
	nd.surLo = int32(len(g.t.surr))
	if g.p.MaxSurrogate > 0 {
		g.surrogates(sp.feature, rows)
	}
	nd.surHi = int32(len(g.t.surr))
	for _, r := range rows {
		if g.side[r] < 0 {
			g.side[r] = g.naSide(nd, r)
		}
	}
	out, k := g.scratch[:0], 0
	for _, r := range rows {
		if g.side[r] == 0 {
			rows[k] = r
			k++
		} else {
			out = append(out, r)
		}
	}
	copy(rows[k:], out)
	return k
}

// naSide routes training row r, which misses nd's split variable.
func (g *grower) naSide(nd *node, r int32) int8 {
	for _, s := range g.t.surr[nd.surLo:nd.surHi] {
		if v := g.cols[s.feature][r]; v == v {
			return sideOf(v <= s.thr == s.lowLeft)
		}
	}
	if g.p.Missing == Random {
		return sideOf(g.rng.Float64() < nd.pLeft)
	}
	return sideOf(nd.naLeft)
}

// sideOf maps "goes left" to a side.
func sideOf(left bool) int8 {
	if left {
		return 0
	}
	return 1
}
