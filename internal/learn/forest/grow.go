package forest

import (
	"math"
	"math/rand/v2"
	"slices"
)

// split is a candidate split: observed rows with x ≤ thr go to child 0
// (ranger's rule, also at prediction), the others to child 1, NA rows to
// child naSide. thr = +Inf is MIA's "observed vs NA" split.
type split struct {
	feat   int
	lo, hi float64 // the distinct values the threshold separates
	thr    float64 // set when the split is chosen
	gain   float64 // Σ_children S²/N over in-bag entries (ranger's decrease + a constant)
	naSide uint8   // MIA: side the NA rows were scored on; naAny when the node had none
}

// naAny marks a split scored without NA rows in the node: NA rows then go
// to the child with more in-bag entries.
const naAny uint8 = 2

// grower grows the trees of one worker, reusing its scratch space.
type grower struct {
	*data
	mtry, minNode, maxDepth int
	mia                     bool
	rng                     *rand.Rand

	cnt   []int32   // in-bag multiplicity of each row
	wy    []float64 // cnt[r]·y[r]
	idx   [][]int32 // idx[j][pos]: in-bag rows by ascending col[j]; a node owns [lo, hi) in every column
	buf   []int32   // partition scratch
	side  []uint8   // child of each row at the current split
	feats []int     // candidate columns scratch
	out   []node    // the tree being grown
}

// newGrower returns a grower for the forest's data and parameters.
func newGrower(dt *data, p Params) *grower {
	g := &grower{data: dt, mtry: p.mtry(dt.d), minNode: p.MinNodeSize, maxDepth: p.MaxDepth,
		mia: p.Strategy != noMissing, cnt: make([]int32, dt.n), wy: make([]float64, dt.n),
		idx: make([][]int32, dt.d), buf: make([]int32, dt.n), side: make([]uint8, dt.n)}
	all := make([]int32, dt.n*dt.d)
	for j := range dt.d {
		g.idx[j] = all[j*dt.n : (j+1)*dt.n]
	}
	return g
}

// growTree grows one tree on the in-bag rows (repeats allowed), drawing
// the candidate columns from rng, and returns its nodes, root first.
func (g *grower) growTree(rows []int, rng *rand.Rand) []node {
	g.rng = rng
	clear(g.cnt)
	for _, r := range rows {
		g.cnt[r]++
	}
	for r, c := range g.cnt {
		g.wy[r] = float64(c) * g.y[r]
	}
	m := 0
	for j := range g.d {
		k := 0
		for _, r := range g.order[j] {
			if g.cnt[r] > 0 {
				g.idx[j][k], k = r, k+1
			}
		}
		m = k
	}
	g.out = append(g.out[:0], node{})
	g.grow(0, 0, m, 0)
	return slices.Clone(g.out)
}

// grow makes node at (owning positions [lo, hi)) a leaf or splits it and
// grows its children, depth first. As ranger: a node with at most
// minNode in-bag entries, at maxDepth, or whose entries share one target
// value is a leaf; so is a node where no candidate column varies.
func (g *grower) grow(at int32, lo, hi, depth int) {
	n, s, pure := g.nodeStats(lo, hi)
	if n <= g.minNode || pure || (g.maxDepth > 0 && depth >= g.maxDepth) {
		g.out[at] = node{v: s / float64(n), feat: -1}
		return
	}
	c, ok := g.bestSplit(lo, hi, n, s)
	if !ok {
		g.out[at] = node{v: s / float64(n), feat: -1}
		return
	}
	nl := g.apply(&c, lo, hi)
	k := int32(len(g.out))
	g.out = append(g.out, node{}, node{})
	g.out[at] = node{v: c.thr, feat: int32(c.feat), kids: uint32(k)<<1 | uint32(c.naSide)}
	g.grow(k, lo, lo+nl, depth+1)
	g.grow(k+1, lo+nl, hi, depth+1)
}

// nodeStats returns the number of in-bag entries of [lo, hi), the sum of
// their targets, and whether all targets are equal.
func (g *grower) nodeStats(lo, hi int) (n int, s float64, pure bool) {
	ids := g.idx[0][lo:hi]
	y0 := g.y[ids[0]]
	pure = true
	for _, r := range ids {
		n += int(g.cnt[r])
		s += g.wy[r]
		pure = pure && g.y[r] == y0
	}
	return n, s, pure
}

// candidates returns the columns searched at a node: mtry of them drawn
// without replacement (partial Fisher–Yates), in the order drawn. As in
// ranger, the order matters: a later column must score strictly better,
// so ties between columns (two columns inducing the same partition of a
// small node are common) go to a uniformly random one, not to the lowest
// index. With mtry = d every column is searched, in random order.
func (g *grower) candidates() []int {
	g.feats = g.feats[:0]
	for j := range g.d {
		g.feats = append(g.feats, j)
	}
	for i := range min(g.mtry, g.d-1) {
		k := i + g.rng.IntN(g.d-i)
		g.feats[i], g.feats[k] = g.feats[k], g.feats[i]
	}
	return g.feats[:g.mtry]
}

// bestSplit returns the split of largest gain over the candidate
// columns; ties go to the column drawn first, then the lower threshold.
func (g *grower) bestSplit(lo, hi, n int, s float64) (split, bool) {
	best := split{gain: math.Inf(-1), feat: -1}
	for _, j := range g.candidates() {
		if g.mia {
			g.scanMIA(j, lo, hi, n, s, &best)
		} else {
			g.scan(j, lo, hi, n, s, &best)
		}
	}
	return best, best.feat >= 0
}

// scan scores every split of a complete column j at the midpoints of
// consecutive distinct values, ranger's "variance" rule: the gain
// S_L²/N_L + S_R²/N_R is ranger's impurity decrease.
func (g *grower) scan(j, lo, hi, n int, s float64, best *split) {
	ids, xs, inv := g.idx[j][lo:hi], g.col[j], g.inv
	if xs[ids[0]] == xs[ids[len(ids)-1]] {
		return
	}
	var sl float64
	nl := 0
	for p := 0; p < len(ids)-1; p++ {
		r := ids[p]
		sl += g.wy[r]
		nl += int(g.cnt[r])
		a, b := xs[r], xs[ids[p+1]]
		if a == b {
			continue
		}
		sr := s - sl
		if gain := sl*sl*inv[nl] + sr*sr*inv[n-nl]; gain > best.gain {
			*best = split{feat: j, lo: a, hi: b, gain: gain, naSide: naAny}
		}
	}
}

// scanMIA scores the MIA splits of column j over the node's n entries
// summing to s: each threshold between consecutive distinct observed
// values with the node's NA rows sent to child 0 and, then, to child 1,
// and finally "observed vs NA" (NA to child 1). Every child must hold an
// entry. Without NA in the node it scores exactly as scan.
func (g *grower) scanMIA(j, lo, hi, n int, s float64, best *split) {
	ids, xs, inv := g.idx[j][lo:hi], g.col[j], g.inv
	k := len(ids)
	var sNA float64
	nNA := 0
	for k > 0 && math.IsNaN(xs[ids[k-1]]) {
		k--
		sNA, nNA = sNA+g.wy[ids[k]], nNA+int(g.cnt[ids[k]])
	}
	sObs, nObs := s-sNA, n-nNA
	consider := func(gain, a, b float64, side uint8) {
		if gain > best.gain {
			*best = split{feat: j, lo: a, hi: b, gain: gain, naSide: side}
		}
	}
	var sl float64
	nl := 0
	for p := 0; p < k-1; p++ {
		r := ids[p]
		sl += g.wy[r]
		nl += int(g.cnt[r])
		a, b := xs[r], xs[ids[p+1]]
		if a == b {
			continue
		}
		nr, sr := nObs-nl, sObs-sl
		if nNA == 0 {
			consider(sl*sl*inv[nl]+sr*sr*inv[nr], a, b, naAny)
			continue
		}
		l, r2 := sl+sNA, sr+sNA
		consider(l*l*inv[nl+nNA]+sr*sr*inv[nr], a, b, 0)
		consider(sl*sl*inv[nl]+r2*r2*inv[nr+nNA], a, b, 1)
	}
	if nObs > 0 && nNA > 0 {
		consider(sObs*sObs*inv[nObs]+sNA*sNA*inv[nNA], math.Inf(1), math.Inf(1), 1)
	}
}

// apply fixes c's threshold and NA side, routes the rows of [lo, hi) and
// stably partitions every column's positions so that the rows of child
// 0 come first. It returns their number.
func (g *grower) apply(c *split, lo, hi int) int {
	c.thr = midpoint(c.lo, c.hi)
	ids, xs := g.idx[c.feat][lo:hi], g.col[c.feat]
	var w [2]int
	nl, naSeen := 0, false
	for _, r := range ids {
		x := xs[r]
		sd := uint8(1)
		switch {
		case x <= c.thr:
			sd = 0
		case math.IsNaN(x):
			sd, naSeen = c.naSide, true
		}
		g.side[r] = sd
		if sd == 0 {
			nl++
		}
		if sd < 2 {
			w[sd] += int(g.cnt[r])
		}
	}
	if c.naSide == naAny { // no NA in the node: NA goes to the larger child
		c.naSide = 0
		if w[1] > w[0] {
			c.naSide = 1
		}
	}
	for j := range g.d {
		if j != c.feat || (naSeen && c.naSide == 0) {
			partition(g.idx[j][lo:hi], g.side, g.buf)
		}
	}
	return nl
}

// partition stably reorders ids so that the rows with side 0 come first.
func partition(ids []int32, side []uint8, buf []int32) {
	i0, i1 := 0, 0
	for _, r := range ids {
		s := int(side[r])
		ids[i0], buf[i1] = r, r
		i0 += 1 - s
		i1 += s
	}
	copy(ids[i0:], buf[:i1])
}

// midpoint returns the split point (a+b)/2 between consecutive distinct
// values a < b (ranger's), guarded so that x ≤ split still separates a
// from b: on overflow a/2 + b/2, and a when the rounded midpoint is not
// below b (adjacent floats, or b = +Inf).
func midpoint(a, b float64) float64 {
	m := (a + b) / 2
	if math.IsInf(m, 0) {
		m = a/2 + b/2
	}
	if m >= b { // a and b adjacent floats (or b = +Inf): a itself separates them under x ≤ thr
		m = a
	}
	return m
}
