package forest

import "math"

// classGrower grows the trees of a probability forest on the regression
// grower's machinery (presorted columns, bootstrap multiplicities,
// candidate draws, routing and partitioning), with class counts in place
// of target sums, ranger's Gini decrease in the split search and the
// in-bag class fractions at the leaves.
type classGrower struct {
	*grower
	k       int
	cls     []int32       // cls[r]: row r's class code
	cw      []classWeight // each row's in-bag multiplicity and class, for the tree being grown
	cnt     []int         // children's class counts by depth: slot(d) holds depth d's, child 0's k then child 1's
	left    []int         // scan scratch: class counts left of the position (observed rows under MIA)
	na, obs []int         // MIA scan scratch: class counts of the node's NA rows and of its observed rows
	fracs   []float64     // leaf class fractions of the tree being grown, k per leaf
}

// classWeight is a row's in-bag multiplicity and class code, read
// together by the scans.
type classWeight struct{ cnt, cls int32 }

// newClassGrower returns a grower for a probability forest on dt, whose
// targets are class codes in [0, k).
func newClassGrower(dt *data, p Params, k int) *classGrower {
	g := &classGrower{grower: newGrower(dt, p), k: k, cls: make([]int32, dt.n), cw: make([]classWeight, dt.n),
		left: make([]int, k), na: make([]int, k), obs: make([]int, k)}
	for r, v := range dt.y {
		g.cls[r] = int32(v)
	}
	return g
}

// growTree grows one tree on the in-bag rows (repeats allowed), drawing
// the candidate columns from rng, and returns its nodes, root first, and
// its leaves' class fractions (a leaf's v is the offset of its k
// fractions), in the grower's scratch space: valid until the next call.
func (g *classGrower) growTree(rows []int, rng draw) ([]node, []float64) {
	m := g.bag(rows, rng)
	for r, w := range g.wc {
		g.cw[r] = classWeight{int32(w.cnt), g.cls[r]}
	}
	g.out = append(g.out[:0], node{})
	g.fracs = g.fracs[:0]
	root := g.slot(0)[:g.k]
	clear(root)
	n := 0
	for _, e := range g.idx[0][:m] {
		w := g.cw[e.row()]
		root[w.cls] += int(w.cnt)
		n += int(w.cnt)
	}
	g.grow(0, 0, m, 0, n, root)
	g.thresholds()
	return g.out, g.fracs
}

// slot returns the 2k class counts of the children of a split at depth
// d−1, growing the scratch space as needed: the counts of the nodes on
// the current path (shallower slots) stay where they are.
func (g *classGrower) slot(d int) []int {
	for len(g.cnt) < 2*g.k*(d+1) {
		g.cnt = append(g.cnt, make([]int, 2*g.k*(d+1))...)
	}
	return g.cnt[2*g.k*d : 2*g.k*(d+1)]
}

// grow makes node at (owning positions [lo, hi), with n in-bag entries
// whose class counts are cnt) a leaf or splits it and grows its
// children, depth first, by ranger's rules for a probability tree
// (TreeProbability::splitNodeInternal): a node with at most MinNodeSize
// entries, at MaxDepth, or whose entries share one class is a leaf; so
// is a node where no candidate column varies.
func (g *classGrower) grow(at int32, lo, hi, depth, n int, cnt []int) {
	g.idx = g.lists[depth&1]
	if g.leafBySize(n, depth) || g.pure(lo, hi) {
		g.leaf(at, n, cnt)
		return
	}
	c, ok := g.bestSplit(lo, hi, n, cnt)
	if !ok {
		g.leaf(at, n, cnt)
		return
	}
	nl, naSeen := g.route(c, lo, hi)
	ch := g.slot(depth + 1)
	w := classCounts(g.idx[0][lo:hi], g.side, g.cw, g.k, ch)
	k, leaf := g.place(at, c, lo, hi, depth, nl, naSeen, w)
	c0, c1 := ch[:g.k], ch[g.k:]
	if leaf[0] {
		g.leaf(k, w[0], c0)
	} else {
		g.grow(k, lo, lo+nl, depth+1, w[0], c0)
	}
	if leaf[1] {
		g.leaf(k+1, w[1], c1)
	} else {
		g.grow(k+1, lo+nl, hi, depth+1, w[1], c1)
	}
}

// leaf makes node at a leaf holding the class fractions cnt[j]/n of its
// n in-bag entries (ranger's terminal_class_counts), appended to
// g.fracs; the node's v is their offset there.
func (g *classGrower) leaf(at int32, n int, cnt []int) {
	g.out[at] = node{v: float64(len(g.fracs)), feat: -1}
	for _, c := range cnt {
		g.fracs = append(g.fracs, float64(c)/float64(n))
	}
}

// classCounts writes into ch the class counts of the in-bag entries of
// ids on each side (child 0's k counts, then child 1's) and returns each
// side's number of entries.
func classCounts(ids []entry, side []uint8, cw []classWeight, k int, ch []int) (w [2]int) {
	clear(ch)
	for _, e := range ids {
		r := e.row()
		x := cw[r]
		s := int(side[r])
		ch[s*k+int(x.cls)] += int(x.cnt)
		w[s] += int(x.cnt)
	}
	return w
}

// bestSplit returns the split of largest Gini decrease over the
// candidate columns of the node [lo, hi) (n entries, class counts cnt);
// ties go to the column drawn first, then the lower threshold, as
// ranger's strict "decrease > best_decrease".
func (g *classGrower) bestSplit(lo, hi, n int, cnt []int) (split, bool) {
	best := split{gain: math.Inf(-1), feat: -1}
	sq := sumSq(cnt)
	for _, j := range g.candidates() {
		if g.mia {
			g.scanMIA(j, lo, hi, n, cnt, sq, &best)
		} else {
			g.scan(j, lo, hi, n, cnt, sq, &best)
		}
	}
	return best, best.feat >= 0
}

// sumSq returns Σ c² over the counts.
func sumSq(cnt []int) int64 {
	var s int64
	for _, c := range cnt {
		s += int64(c) * int64(c)
	}
	return s
}

// decrease is ranger's Gini decrease of a split (TreeProbability's
// findBestSplitValue with unit class weights): Σ_j R_j²/n_R + Σ_j
// L_j²/n_L, from the sums of squared class counts of each child, as
// ranger computes it in double precision (the sums are exact integers
// below 2⁵³, so for nodes under 9·10⁷ entries; the two quotients are
// rounded as ranger's, and their sum does not depend on the order).
func decrease(sqL int64, nL int, sqR int64, nR int) float64 {
	return float64(sqR)/float64(nR) + float64(sqL)/float64(nL)
}

// scan scores every split of a complete column j at the midpoints of
// consecutive distinct values by ranger's Gini decrease and keeps the
// best in best when strictly better.
func (g *classGrower) scan(j, lo, hi, n int, cnt []int, sq int64, best *split) {
	ids := g.idx[j][lo:hi]
	if ids[0].rank() == ids[len(ids)-1].rank() {
		return
	}
	var gain float64
	var at int
	if g.k == 2 {
		gain, at = giniRun2(ids, g.cw, cnt[1], n, best.gain)
	} else {
		clear(g.left)
		gain, at = giniRun(ids, g.cw, g.left, cnt, n, sq, best.gain)
	}
	if at > 0 {
		*best = split{feat: j, gain: gain, naSide: naAny, at: at, na: len(ids)}
	}
}

// giniRun returns the largest Gini decrease of the splits between
// consecutive distinct ranks of ids (n entries, class counts tot, Σ tot²
// = sq), if above bestGain, with the first position reaching it (else
// bestGain and 0). left must hold k zeros; the sums of squared counts of
// both sides are updated per entry in O(1): adding w entries of a class
// with c of them already on a side adds w(2c + w) to its sum.
//
//go:noinline
func giniRun(ids []entry, cw []classWeight, left, tot []int, n int, sq int64, bestGain float64) (float64, int) {
	var sl int64
	sr := sq
	nl, at := 0, 0
	for p := 1; p < len(ids); p++ {
		x := cw[ids[p-1].row()]
		w, c := int64(x.cnt), x.cls
		l := int64(left[c])
		r := int64(tot[c]) - l
		sl += w * (2*l + w)
		sr -= w * (2*r - w)
		left[c] += int(w)
		nl += int(w)
		if ids[p].rank() == ids[p-1].rank() {
			continue
		}
		if gain := decrease(sl, nl, sr, n-nl); gain > bestGain {
			bestGain, at = gain, p
		}
	}
	return bestGain, at
}

// giniRun2 is giniRun for two classes (tot1 entries of class 1 among
// n), with the count of class 1 on the left in a register instead of a
// slice: the sums of squares L0² + L1² and R0² + R1² are the same
// integers.
//
//go:noinline
func giniRun2(ids []entry, cw []classWeight, tot1, n int, bestGain float64) (float64, int) {
	nl, l1, at := 0, 0, 0
	for p := 1; p < len(ids); p++ {
		x := cw[ids[p-1].row()]
		nl += int(x.cnt)
		l1 += int(x.cnt) * int(x.cls)
		if ids[p].rank() == ids[p-1].rank() {
			continue
		}
		l0, r1 := int64(nl-l1), int64(tot1-l1)
		r0 := int64(n-nl) - r1
		if gain := decrease(l0*l0+int64(l1)*int64(l1), nl, r0*r0+r1*r1, n-nl); gain > bestGain {
			bestGain, at = gain, p
		}
	}
	return bestGain, at
}

// scanMIA scores the MIA splits of column j over the node's n entries
// with class counts cnt (Σ cnt² = sq), as the regression grower's scanMIA
// with the Gini decrease: each threshold between consecutive distinct
// observed values with the node's NA rows sent to child 0 and, then, to
// child 1, and finally "observed vs NA" (NA to child 1). Without NA in
// the node it scores exactly as scan.
func (g *classGrower) scanMIA(j, lo, hi, n int, cnt []int, sq int64, best *split) {
	ids, naRank := g.idx[j][lo:hi], g.naRank[j]
	k := len(ids)
	clear(g.na)
	nNA := 0
	for k > 0 && ids[k-1].rank() == naRank {
		k--
		x := g.cw[ids[k].row()]
		g.na[x.cls] += int(x.cnt)
		nNA += int(x.cnt)
	}
	if nNA == 0 {
		g.scan(j, lo, hi, n, cnt, sq, best)
		return
	}
	for c := range g.obs {
		g.obs[c] = cnt[c] - g.na[c]
	}
	nObs, sqObs, sqNA := n-nNA, sumSq(g.obs), sumSq(g.na)
	if k > 1 && ids[0].rank() != ids[k-1].rank() {
		clear(g.left)
		if gain, at, side := giniRunMIA(ids[:k], g.cw, g.left, g.obs, g.na, nObs, nNA, sqObs, sqNA, sq, best.gain); at > 0 {
			*best = split{feat: j, gain: gain, naSide: side, at: at, na: k}
		}
	}
	if nObs > 0 {
		if gain := decrease(sqObs, nObs, sqNA, nNA); gain > best.gain {
			*best = split{feat: j, gain: gain, naSide: 1, at: k, na: k} // thr +Inf
		}
	}
}

// giniRunMIA is giniRun over the observed entries ids of a node whose
// NA entries (nNA, class counts na, Σ na² = sqNA) go, at each threshold,
// first to child 0 and then to child 1; obs are the observed class
// counts (nObs entries, Σ obs² = sqObs) and sq = Σ (obs + na)². It
// returns the best decrease above bestGain, its position and the NA
// side (0 on a tie between the sides), or bestGain and position 0.
//
//go:noinline
func giniRunMIA(ids []entry, cw []classWeight, left, obs, na []int, nObs, nNA int, sqObs, sqNA, sq int64, bestGain float64) (float64, int, uint8) {
	var sl int64                      // Σ L², observed left
	slNA, sr, srNA := sqNA, sqObs, sq // Σ (L+NA)², Σ R², Σ (R+NA)²
	nl, at, side := 0, 0, uint8(0)
	for p := 1; p < len(ids); p++ {
		x := cw[ids[p-1].row()]
		w, c := int64(x.cnt), x.cls
		l, a := int64(left[c]), int64(na[c])
		r := int64(obs[c]) - l
		sl += w * (2*l + w)
		slNA += w * (2*(l+a) + w)
		sr -= w * (2*r - w)
		srNA -= w * (2*(r+a) - w)
		left[c] += int(w)
		nl += int(w)
		if ids[p].rank() == ids[p-1].rank() {
			continue
		}
		nr := nObs - nl
		if gain := decrease(slNA, nl+nNA, sr, nr); gain > bestGain {
			bestGain, at, side = gain, p, 0
		}
		if gain := decrease(sl, nl, srNA, nr+nNA); gain > bestGain {
			bestGain, at, side = gain, p, 1
		}
	}
	return bestGain, at, side
}
