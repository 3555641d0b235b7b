package boost

import "github.com/misslab/misslab/internal/learn/internal/sides"

// grower builds one tree per round with XGBoost's colmaker semantics.
// Each column's observed entries are kept sorted by value and partitioned
// into contiguous per-node segments, so finding a node's splits scans only
// its own rows, in the same ascending or descending order as XGBoost's
// scan of the whole column; a node's rows are kept in row order so that
// gradient sums are accumulated in XGBoost's order.
type grower struct {
	ds   *dataset
	sc   *scorer
	p    Params
	eta  float32
	grad []float32
	// grad64 is grad in float64 (exact), read by stats; the scans read
	// grad itself, converting each value (exact too): half the bytes of
	// random access per entry, which counts at large n
	grad64 []float64
	// hess are the rows' hessians (float32 as XGBoost's gradient pairs)
	// for a loss whose hessian is not 1 (classification, see weigh), and
	// gh the gradients and hessians in float64; both nil for squared error
	hess []float32
	gh   []gpair
	cols [][]entry // working copies of ds.cols, partitioned by node
	// src is where the current level's entries are: ds.cols at the root
	// (partitioning the root fills cols), cols below it
	src   [][]entry
	rows  []int32 // row indices partitioned by node, ascending within a node
	left  []uint8 // per row: 1 if it goes to the left child at this level
	final []int32 // per row: node it ends in
	tmpE  []entry
	tmpR  []int32
	level []active
	next  []active
	// segment bounds of the nodes of the current and the next level,
	// 2·d per node
	segs, nextSegs []int32
}

// active is a node of the current level still to be split: its rows
// rows[lo:hi] and its entries cols[f][s[2f]:s[2f+1]] where s is the
// slice segs[2d·seg:2d·(seg+1)] of its level.
type active struct {
	id     int32
	lo, hi int32
	seg    int32
	st     nodeStats
}

func newGrower(ds *dataset, p Params) *grower {
	g := &grower{ds: ds, sc: newScorer(p, ds.n), p: p, eta: float32(p.Eta),
		grad: make([]float32, ds.n), grad64: make([]float64, ds.n), cols: make([][]entry, ds.d),
		rows: make([]int32, ds.n), left: sides.Make(ds.n), final: make([]int32, ds.n),
		tmpE: make([]entry, ds.n), tmpR: make([]int32, ds.n)}
	for f, c := range ds.cols {
		g.cols[f] = make([]entry, len(c))
	}
	return g
}

// stats returns the gradient statistics of rows, summed in row order.
func (g *grower) stats(rows []int32) nodeStats {
	if g.hess != nil {
		return g.statsW(rows)
	}
	var sum float64
	for _, r := range rows {
		sum += g.grad64[r]
	}
	h := len(rows)
	return nodeStats{g: sum, h: h, root: g.sc.gain(sum, h)}
}

// grow fits one tree to the gradients in g.grad and the hessians in
// g.hess (1 if g.hess is nil).
func (g *grower) grow() tree {
	ds := g.ds
	for i, v := range g.grad {
		g.grad64[i] = float64(v)
	}
	for i, v := range g.hess {
		g.gh[i] = gpair{float64(g.grad[i]), float64(v)}
	}
	g.src = ds.cols
	for i := range g.rows {
		g.rows[i] = int32(i)
	}
	root := active{id: 0, lo: 0, hi: int32(ds.n), seg: 0, st: g.stats(g.rows)}
	g.segs = g.segs[:0]
	for _, c := range ds.cols {
		g.segs = append(g.segs, 0, int32(len(c)))
	}
	t := tree{nodes: []node{g.newNode(-1, root.st)}}
	g.level = append(g.level[:0], root)
	for depth := 0; depth < g.p.MaxDepth && len(g.level) > 0; depth++ {
		g.next, g.nextSegs = g.next[:0], g.nextSegs[:0]
		// children of the last level are never scanned: skip their entries
		scanKids := depth+1 < g.p.MaxDepth
		for k := range g.level {
			g.splitNode(&t, &g.level[k], scanKids)
		}
		g.level, g.next = g.next, g.level
		g.src = g.cols
		g.segs, g.nextSegs = g.nextSegs, g.segs
	}
	for k := range g.level {
		g.makeLeaf(&t, &g.level[k])
	}
	t.prune(float32(g.p.Gamma), g.eta)
	return t
}

// newNode returns a fresh node with the statistics st.
func (g *grower) newNode(parent int32, st nodeStats) node {
	if g.hess != nil {
		return node{left: -1, right: -1, parent: parent, hess: st.hs, weight: g.sc.weightW(st.g, st.hs)}
	}
	return node{left: -1, right: -1, parent: parent, hess: float64(st.h),
		weight: g.sc.weight(st.g, st.h)}
}

// makeLeaf turns a node into a leaf and records where its rows end.
func (g *grower) makeLeaf(t *tree, a *active) {
	nd := &t.nodes[a.id]
	nd.value = nd.weight * g.eta
	for _, r := range g.rows[a.lo:a.hi] {
		g.final[r] = a.id
	}
}

// bestSplit scans every feature of node a in index order, forward first
// where XGBoost does both directions; two adjacent features scanned
// descending only, with as many entries, are scanned together. With
// per-row hessians it is bestSplitW.
func (g *grower) bestSplit(a *active) split {
	if g.hess != nil {
		return g.bestSplitW(a)
	}
	var best split
	d := g.ds.d
	s := g.segs[2*d*int(a.seg) : 2*d*int(a.seg+1)]
	for f := 0; f < d; f++ {
		seg := g.src[f][s[2*f]:s[2*f+1]]
		switch {
		case g.sc.alpha != 0:
			if g.ds.forward[f] {
				g.sc.scan(seg, g.grad, int32(f), a.st, &best, false)
			}
			g.sc.scan(seg, g.grad, int32(f), a.st, &best, true)
		case g.ds.forward[f]:
			g.sc.scanBoth(seg, g.grad, int32(f), a.st, &best)
		case f+1 < d && !g.ds.forward[f+1] && s[2*f+3]-s[2*f+2] == int32(len(seg)):
			g.sc.scanTwo(seg, g.src[f+1][s[2*f+2]:s[2*f+3]], g.grad, int32(f), a.st, &best)
			f++
		default:
			g.sc.scan(seg, g.grad, int32(f), a.st, &best, true)
		}
	}
	return best
}

// splitNode splits node a if its best loss change exceeds XGBoost's
// kRtEps, queueing both children for the next level; otherwise a becomes
// a leaf. Children's entries are partitioned only if scanKids.
func (g *grower) splitNode(t *tree, a *active, scanKids bool) {
	best := g.bestSplit(a)
	if !(best.loss > rtEps) {
		g.makeLeaf(t, a)
		return
	}
	l, r := int32(len(t.nodes)), int32(len(t.nodes)+1)
	nl := g.partitionRows(a, best)
	la := active{id: l, lo: a.lo, hi: a.lo + nl}
	ra := active{id: r, lo: a.lo + nl, hi: a.hi}
	la.st, ra.st = g.stats(g.rows[la.lo:la.hi]), g.stats(g.rows[ra.lo:ra.hi])
	if scanKids {
		g.partitionColumns(a, &la, &ra)
	}
	nd := &t.nodes[a.id]
	nd.left, nd.right, nd.feat, nd.thresh, nd.defLeft, nd.loss = l, r, best.feat, best.thresh, best.defLeft, best.loss
	t.nodes = append(t.nodes, g.newNode(a.id, la.st), g.newNode(a.id, ra.st))
	g.next = append(g.next, la, ra)
}

// partitionColumns splits every feature segment of a into those of its
// children la and ra, appending their bounds to g.nextSegs.
func (g *grower) partitionColumns(a, la, ra *active) {
	d := g.ds.d
	s := g.segs[2*d*int(a.seg) : 2*d*int(a.seg+1)]
	la.seg = int32(len(g.nextSegs) / (2 * d))
	ra.seg = la.seg + 1
	base := len(g.nextSegs)
	g.nextSegs = append(g.nextSegs, make([]int32, 4*d)...)
	ls, rs := g.nextSegs[base:base+2*d], g.nextSegs[base+2*d:base+4*d]
	for f := range d {
		lo, hi := s[2*f], s[2*f+1]
		mid := lo + partitionEntries(g.cols[f][lo:hi], g.src[f][lo:hi], g.tmpE, g.left)
		ls[2*f], ls[2*f+1] = lo, mid
		rs[2*f], rs[2*f+1] = mid, hi
	}
}

// partitionRows decides the side of every row of a by the split's
// float32 comparison (missing: default side), records it in g.left and
// stably partitions the row segment. It returns the left child's size.
func (g *grower) partitionRows(a *active, s split) int32 {
	return partitionRows(g.rows[a.lo:a.hi], g.tmpR, g.left, g.ds.x[s.feat:], g.ds.d, s.thresh, b2u(s.defLeft))
}

// partitionRows is grower.partitionRows on the rows of a node, with
// xf[r·d] the split feature of row r and dl = 1 if missing values go
// left. It stays out of line so that its counters are kept in registers.
//
//go:noinline
func partitionRows(rows, tmp []int32, left []uint8, xf []float32, d int, thresh float32, dl uint8) int32 {
	tmp = tmp[:len(rows)]
	nl, nr := 0, 0
	for _, r := range rows { // branch-free: both writes, one advance
		v := xf[int(r)*d]
		l := b2u(v < thresh) | b2u(v != v)&dl
		left[r] = l
		rows[nl] = r
		tmp[nr] = r
		nl += int(l)
		nr += 1 - int(l)
	}
	copy(rows[nl:], tmp[:nr])
	return int32(nl)
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// partitionEntries stably partitions the entries of src into dst (of the
// same length; dst may be src itself), those of left-going rows
// (left[row] = 1) first, using tmp (len(tmp) ≥ len(src)), and returns
// their number. From splitMin entries it leaves the work to sides.Split
// (the right-going rows to tmp, the left-going straight to dst); below,
// or where Split has no vector kernel, a Go loop kept out of line so
// that its counters stay in registers.
func partitionEntries(dst, src, tmp []entry, left []uint8) int32 {
	if sides.Vector && len(src) >= splitMin {
		nr := sides.Split(entryWords(src), left, rowShift, entryWords(tmp), entryWords(dst))
		nl := len(src) - nr
		copy(dst[nl:], tmp[:nr])
		return int32(nl)
	}
	return partitionEntriesGo(dst, src, tmp, left)
}

// splitMin is the segment size from which partitionEntries calls
// sides.Split, whose vector kernel takes blocks of eight entries.
const splitMin = 16

// partitionEntriesGo is partitionEntries's Go loop.
//
//go:noinline
func partitionEntriesGo(dst, src, tmp []entry, left []uint8) int32 {
	dst, tmp = dst[:len(src)], tmp[:len(src)]
	nl, nr := 0, 0
	for _, e := range src { // branch-free: both writes, one advance
		l := int(left[e.row])
		dst[nl] = e
		tmp[nr] = e
		nl += l
		nr += 1 - l
	}
	copy(dst[nl:], tmp[:nr])
	return int32(nl)
}
