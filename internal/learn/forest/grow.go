package forest

import (
	"math"

	"github.com/misslab/misslab/internal/learn/internal/sides"
)

// split is a candidate split: observed rows with x ≤ thr go to child 0
// (ranger's rule, also at prediction), the others to child 1, NA rows to
// child naSide. thr, set in the tree by growTree's last pass, is the
// midpoint of the values at positions at−1 and at, or +Inf for MIA's
// "observed vs NA" split (at = na).
type split struct {
	feat   int
	gain   float64 // Σ_children S²/N over in-bag entries (ranger's decrease + a constant)
	naSide uint8   // MIA: side the NA rows were scored on; naAny when the node had none
	at, na int     // in the node's positions of feat: the first going to child 1, the first NA (len when none)
}

// weight is a row's in-bag multiplicity and its target times that.
type weight struct {
	wy  float64 // cnt·y
	cnt int
}

// naAny marks a split scored without NA rows in the node: NA rows then go
// to the child with more in-bag entries.
const naAny uint8 = 2

// grower grows the trees of one worker, reusing its scratch space.
type grower struct {
	*data
	mtry, minNode, maxDepth int
	mia                     bool
	rng                     draw

	wc    []weight     // each row's in-bag multiplicity and weighted target
	idx   [][]entry    // idx[j][pos]: in-bag rows by ascending col[j]; a node owns [lo, hi) in every column
	lists [2][][]entry // idx of the nodes at even and odd depths: a split moves its rows from one to the other
	side  []uint8      // child of each row at the current split
	feats []int        // candidate columns scratch
	out   []node       // the tree being grown
}

// newGrower returns a grower for the forest's data and parameters.
func newGrower(dt *data, p Params) *grower {
	g := &grower{data: dt, mtry: p.mtry(dt.d), minNode: p.MinNodeSize, maxDepth: p.MaxDepth,
		mia: p.Strategy != noMissing, wc: make([]weight, dt.n),
		side: sides.Make(dt.n)}
	all := make([]entry, 2*dt.n*dt.d)
	for b := range g.lists {
		g.lists[b] = make([][]entry, dt.d)
		for j := range dt.d {
			o := (b*dt.d + j) * dt.n
			g.lists[b][j] = all[o : o+dt.n]
		}
	}
	g.idx = g.lists[0]
	return g
}

// growTree grows one tree on the in-bag rows (repeats allowed), drawing
// the candidate columns from rng, and returns its nodes, root first, in
// the grower's scratch space: valid until the next call.
func (g *grower) growTree(rows []int, rng draw) []node {
	m := g.bag(rows, rng)
	g.out = append(g.out[:0], node{})
	n, s := g.nodeStats(0, m)
	g.grow(0, 0, m, 0, n, s)
	g.thresholds()
	return g.out
}

// bag prepares the root of a tree on the in-bag rows (repeats allowed)
// whose candidate columns come from rng: each row's multiplicity and
// weighted target, and every column's in-bag rows in sorted order at the
// root's depth. It returns the number of distinct in-bag rows.
func (g *grower) bag(rows []int, rng draw) int {
	g.rng = rng
	clear(g.wc)
	for _, r := range rows {
		g.wc[r].cnt++
	}
	for r := range g.wc {
		g.wc[r].wy = float64(g.wc[r].cnt) * g.y[r]
	}
	m := 0
	for j := range g.d {
		m = inBagOrder(g.lists[0][j], g.sorted[j], g.wc)
	}
	g.idx = g.lists[0] // the root's depth
	return m
}

// pendingThr returns what a split node holds until thresholds runs: the
// rows at positions at−1 and at of its column, packed into the bits of
// v, or +Inf for "observed vs NA". Rows are below maxRows < 2³⁰, so no
// packing has +Inf's bits.
func (g *grower) pendingThr(c split, lo int) float64 {
	if c.at == c.na {
		return math.Inf(1)
	}
	ids := g.idx[c.feat][lo+c.at-1 : lo+c.at+1]
	return math.Float64frombits(uint64(ids[0].row())<<32 | uint64(ids[1].row()))
}

// thresholds replaces every split node's pending rows by the midpoint of
// their values in the split column. Reading the values here, in one loop
// of independent loads, rather than as each split is chosen lets the
// processor overlap the cache misses they cost at large n.
func (g *grower) thresholds() {
	inf := math.Float64bits(math.Inf(1))
	for i, nd := range g.out {
		if nd.feat < 0 || math.Float64bits(nd.v) == inf {
			continue
		}
		b, xs := math.Float64bits(nd.v), g.col[nd.feat]
		g.out[i].v = midpoint(xs[uint32(b>>32)], xs[uint32(b)])
	}
}

// inBagOrder writes into dst the entries of sorted whose row is in the
// bag (positive multiplicity in wc), keeping their order, and returns
// their number. Every entry is written and the count advanced by 0 or 1,
// without a branch.
func inBagOrder(dst, sorted []entry, wc []weight) int {
	k := 0
	dst = dst[:len(sorted)]
	for _, e := range sorted {
		dst[k] = e
		k += min(wc[e.row()].cnt, 1)
	}
	return k
}

// grow makes node at (owning positions [lo, hi), whose in-bag entries
// number n and sum s) a leaf or splits it and grows its children, depth
// first. As ranger: a node with at most minNode in-bag entries, at
// maxDepth, or whose entries share one target value is a leaf; so is a
// node where no candidate column varies. When both children of a split
// are leaves by size or depth, their leaf values are summed straight from
// the parent's positions and no column is partitioned; when one is, only
// the other child's positions are gathered.
func (g *grower) grow(at int32, lo, hi, depth, n int, s float64) {
	g.idx = g.lists[depth&1]
	if g.leafBySize(n, depth) || g.pure(lo, hi) {
		g.out[at] = node{v: s / float64(n), feat: -1}
		return
	}
	c, ok := g.bestSplit(lo, hi, n, s)
	if !ok {
		g.out[at] = node{v: s / float64(n), feat: -1}
		return
	}
	nl, naSeen := g.route(c, lo, hi)
	sum, w := childSums(g.idx[0][lo:hi], g.side, g.wc)
	k, leaf := g.place(at, c, lo, hi, depth, nl, naSeen, w)
	if leaf[0] {
		g.out[k] = node{v: sum[0] / float64(w[0]), feat: -1}
	} else {
		g.grow(k, lo, lo+nl, depth+1, w[0], sum[0])
	}
	if leaf[1] {
		g.out[k+1] = node{v: sum[1] / float64(w[1]), feat: -1}
	} else {
		g.grow(k+1, lo+nl, hi, depth+1, w[1], sum[1])
	}
}

// place makes node at (positions [lo, hi), at depth) the routed split c,
// whose children hold w[0] and w[1] in-bag entries and nl and hi−lo−nl
// positions: it fixes the NA side when the node had no NA (the child with
// more entries, child 0 on a tie), appends the two children, and gathers
// into the next depth's lists the positions of each child that is not a
// leaf by size or depth. It returns the index of child 0 (child 1 follows
// it) and which children are leaves by size or depth.
func (g *grower) place(at int32, c split, lo, hi, depth, nl int, naSeen bool, w [2]int) (int32, [2]bool) {
	if c.naSide == naAny { // no NA in the node: NA goes to the larger child
		c.naSide = 0
		if w[1] > w[0] {
			c.naSide = 1
		}
	}
	k := int32(len(g.out))
	g.out = append(g.out, node{}, node{})
	g.out[at] = node{v: g.pendingThr(c, lo), feat: int32(c.feat), kids: uint32(k)<<1 | uint32(c.naSide)}
	leaf := [2]bool{g.leafBySize(w[0], depth+1), g.leafBySize(w[1], depth+1)}
	if !leaf[0] || !leaf[1] { // a child to grow: gather its positions
		keep := uint8(2) // both children
		switch {
		case leaf[0]:
			keep = 1
		case leaf[1]:
			keep = 0
		}
		g.partitionAll(c, naSeen, lo, hi, nl, keep, g.lists[(depth+1)&1])
	}
	return k, leaf
}

// leafBySize reports whether a node of n in-bag entries at depth is a
// leaf whatever its targets: n ≤ minNode, or depth at maxDepth.
func (g *grower) leafBySize(n, depth int) bool {
	return n <= g.minNode || (g.maxDepth > 0 && depth >= g.maxDepth)
}

// nodeStats returns the number of in-bag entries of [lo, hi) and the sum
// of their targets, in column 0's order.
func (g *grower) nodeStats(lo, hi int) (n int, s float64) {
	for _, e := range g.idx[0][lo:hi] {
		w := g.wc[e.row()]
		n += w.cnt
		s += w.wy
	}
	return n, s
}

// pure reports whether the rows of [lo, hi) share one target value; it
// stops at the first that differs.
func (g *grower) pure(lo, hi int) bool {
	ids := g.idx[0][lo:hi]
	y0 := g.y[ids[0].row()]
	for _, e := range ids[1:] {
		if g.y[e.row()] != y0 {
			return false
		}
	}
	return true
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
		k := i + g.rng.intN(g.d-i)
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
// S_L²/N_L + S_R²/N_R is ranger's impurity decrease. The best position is
// kept in locals and written to best once. The loop reads only the
// node's sequential entries and each row's weight, few enough values for
// the compiler to keep them all in registers.
func (g *grower) scan(j, lo, hi, n int, s float64, best *split) {
	ids := g.idx[j][lo:hi]
	if ids[0].rank() == ids[len(ids)-1].rank() {
		return
	}
	bestGain, at := scanRun(ids, g.wc, g.inv, n, s, best.gain)
	if at > 0 {
		*best = split{feat: j, gain: bestGain, naSide: naAny, at: at, na: len(ids)}
	}
}

// scanRun returns the largest gain of the splits between consecutive
// distinct ranks of ids (n entries summing to s), if above bestGain,
// with the first position reaching it (else bestGain and 0). It is kept
// out of line with only the loop's values as arguments, so that the
// compiler holds them all in registers. Every position is scored, a tie
// too (then discarded), so that the loop has one path.
//
//go:noinline
func scanRun(ids []entry, wc []weight, inv []float64, n int, s, bestGain float64) (float64, int) {
	var sl float64
	nl, at := 0, 0
	prev := ids[0]
	for p := 1; p < len(ids); p++ {
		w := wc[prev.row()]
		e := ids[p]
		sl += w.wy
		nl += w.cnt
		tie := e.rank() == prev.rank()
		prev = e
		sr := s - sl
		if gain := sl*sl*inv[nl] + sr*sr*inv[n-nl]; gain > bestGain && !tie {
			bestGain, at = gain, p
		}
	}
	return bestGain, at
}

// scanMIA scores the MIA splits of column j over the node's n entries
// summing to s: each threshold between consecutive distinct observed
// values with the node's NA rows sent to child 0 and, then, to child 1,
// and finally "observed vs NA" (NA to child 1). Every child must hold an
// entry. Without NA in the node it scores exactly as scan.
func (g *grower) scanMIA(j, lo, hi, n int, s float64, best *split) {
	ids, inv, wc, naRank := g.idx[j][lo:hi], g.inv, g.wc, g.naRank[j]
	k := len(ids)
	var sNA float64
	nNA := 0
	for k > 0 && ids[k-1].rank() == naRank {
		k--
		w := wc[ids[k].row()]
		sNA, nNA = sNA+w.wy, nNA+w.cnt
	}
	if nNA == 0 {
		g.scan(j, lo, hi, n, s, best)
		return
	}
	sObs, nObs := s-sNA, n-nNA
	bestGain, at, side := best.gain, 0, uint8(0)
	var sl float64
	nl := 0
	for p := 1; p < k; p++ {
		e := ids[p-1]
		w := &wc[e.row()]
		sl += w.wy
		nl += w.cnt
		if e.rank() == ids[p].rank() {
			continue
		}
		nr, sr := nObs-nl, sObs-sl
		l, r2 := sl+sNA, sr+sNA
		if gain := l*l*inv[nl+nNA] + sr*sr*inv[nr]; gain > bestGain {
			bestGain, at, side = gain, p, 0
		}
		if gain := sl*sl*inv[nl] + r2*r2*inv[nr+nNA]; gain > bestGain {
			bestGain, at, side = gain, p, 1
		}
	}
	if at > 0 {
		*best = split{feat: j, gain: bestGain, naSide: side, at: at, na: k}
	}
	if nObs > 0 {
		if gain := sObs*sObs*inv[nObs] + sNA*sNA*inv[nNA]; gain > best.gain {
			*best = split{feat: j, gain: gain, naSide: 1, at: k, na: k} // thr +Inf
		}
	}
}

// route sets the side of every row of [lo, hi) under split c.
// It returns the number of rows of child 0 and whether a NA row was
// routed. The split column's positions are sorted (NaN last), so its
// rows fall in three runs that the scan located: [0, at) holds x ≤ thr
// (child 0), [at, na) x > thr (child 1), [na, hi−lo) NA (the stored
// side, which is naAny only when there is no NA row). Sides are set by
// position, without reading the column's values, which at large n cost
// a cache miss per row.
func (g *grower) route(c split, lo, hi int) (nl int, naSeen bool) {
	ids, side := g.idx[c.feat][lo:hi], g.side
	setSide(ids[:c.at], side, 0)
	setSide(ids[c.at:c.na], side, 1)
	setSide(ids[c.na:], side, c.naSide)
	nl = c.at
	if c.naSide == 0 {
		nl += len(ids) - c.na
	}
	return nl, c.na < len(ids)
}

// setSide sets the side of every row of ids to sd.
func setSide(ids []entry, side []uint8, sd uint8) {
	for _, e := range ids {
		side[e.row()] = sd
	}
}

// partitionAll stably partitions every column's positions [lo, hi) by
// the routed sides (nl rows to child 0) into the same positions of dst,
// the lists of the next depth, child 0 first. keep
// 0 or 1 gathers only that child's positions, leaving the other's
// undefined; 2 gathers both. The split column is already in order unless
// NA rows (sorted last) went to child 0: it is copied.
func (g *grower) partitionAll(c split, naSeen bool, lo, hi, nl int, keep uint8, dst [][]entry) {
	inOrder := !(naSeen && c.naSide == 0)
	for j := range dst {
		to, from := dst[j][lo:hi], g.idx[j][lo:hi]
		switch {
		case j == c.feat && inOrder:
			copy(to, from)
		case keep == 2 && len(from) >= splitMin && sides.Vector:
			sides.Split(from, g.side, 0, to[:nl], to[nl:])
		case keep == 0:
			gather0(to, from, g.side)
		case keep == 1:
			gather1(to, from, g.side)
		default:
			partition(to, from, g.side, nl)
		}
	}
}

// splitMin is the node size from which partitionAll splits a column by
// sides.Split's vector kernel.
const splitMin = 1024

// childSums returns the sum of the targets (wy) and the number of in-bag
// entries of each side's rows of ids, summed in ids' order: column 0's,
// the order nodeStats sums a node in. A row adds ±0 to the other side's
// sum, which leaves it unchanged: a sum of targets that starts at +0 is
// never −0.
//
//go:noinline
func childSums(ids []entry, side []uint8, wc []weight) (sum [2]float64, cnt [2]int) {
	var s0, s1 float64
	n1, n := 0, 0
	for _, e := range ids {
		w, sd := wc[e.row()], int(side[e.row()])
		f := float64(sd)
		s0 += w.wy * (1 - f)
		s1 += w.wy * f
		n1 += w.cnt * sd
		n += w.cnt
	}
	return [2]float64{s0, s1}, [2]int{n - n1, n1}
}

// gather0 writes the rows of src with side 0 to the front of dst, in
// order; the rest of dst is left undefined.
//
//go:noinline
func gather0(dst, src []entry, side []uint8) {
	i0 := 0
	dst = dst[:len(src)]
	for _, e := range src {
		dst[i0] = e
		i0 += 1 - int(side[e.row()])
	}
}

// gather1 writes the rows of src with side 1 to the back of dst, in
// order; the front of dst is left undefined.
//
//go:noinline
func gather1(dst, src []entry, side []uint8) {
	k := len(src) - 1
	dst = dst[:len(src)]
	for p := len(src) - 1; p >= 0; p-- {
		e := src[p]
		dst[k] = e
		k -= int(side[e.row()])
	}
}

// partition writes the rows of src into dst stably partitioned by side,
// the nl rows of side 0 first: one store per row, at a position chosen
// without a branch.
//
//go:noinline
func partition(dst, src []entry, side []uint8, nl int) {
	i0, i1 := 0, nl
	dst = dst[:len(src)]
	for _, e := range src {
		s := int(side[e.row()])
		dst[i0+s*(i1-i0)] = e
		i0 += 1 - s
		i1 += s
	}
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
