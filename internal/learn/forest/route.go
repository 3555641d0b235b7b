package forest

import "gonum.org/v1/gonum/blas/blas64"

// router predicts a block of rows tree by tree by pushing the rows down
// each tree node by node: at a split it partitions the node's rows by
// the split (one pass reading one column, no chain between rows), at a
// leaf it adds the leaf's value to each of them. Every row is moved once
// per level it descends, as a walk would step, but without a walk's wait
// for each node before the next.
type router struct {
	cols  [][]float64 // cols[j][i]: the block's column j, row i
	na    bool        // the block may hold NaN (a MIA forest)
	lists [2][]int32  // the rows of the nodes at even and odd depths
	stack []frame
	k     int       // classes of a probability forest (0: regression)
	fracs []float64 // probability forest: the current tree's leaf class fractions
}

// frame is a node still to visit: its rows are lists[depth&1][lo:hi].
type frame struct {
	node          uint32
	lo, hi, depth int32
}

// newRouter returns a router for blocks of up to rows rows of d columns,
// which hold NaN only if na (Predict rejects NaN for a forest fitted
// without missing values).
func newRouter(rows, d int, na bool) *router {
	r := &router{cols: make([][]float64, d), na: na}
	all := make([]float64, rows*d)
	for j := range r.cols {
		r.cols[j] = all[j*rows : (j+1)*rows]
	}
	r.lists = [2][]int32{make([]int32, rows), make([]int32, rows)}
	return r
}

// predict adds, tree after tree, the leaf value every row of raw's rows
// [lo, hi) reaches to acc (indexed from lo), so each row sums its trees
// in order as a walk would.
func (r *router) predict(trees [][]node, raw blas64.General, lo, hi int, acc []float64) {
	m := hi - lo
	r.load(raw, lo, hi)
	for _, t := range trees {
		r.tree(t, m, acc)
	}
}

// predictClass adds, tree after tree, the class fractions fracs[t] of
// the leaf that every row of raw's rows [lo, hi) reaches in trees[t] to
// acc, row i's k classes at acc[i·k:(i+1)·k] (i counted from lo), so each
// row sums its trees in order, as ranger's ForestProbability does.
func (r *router) predictClass(trees [][]node, fracs [][]float64, k int, raw blas64.General, lo, hi int, acc []float64) {
	r.k = k
	m := hi - lo
	r.load(raw, lo, hi)
	for t, nodes := range trees {
		r.fracs = fracs[t]
		r.tree(nodes, m, acc)
	}
}

// addFracs adds the class fractions of the leaf whose v is their offset
// in r.fracs to the k classes of each of rows in acc.
func (r *router) addFracs(v float64, rows []int32, acc []float64) {
	k := r.k
	f := r.fracs[int(v) : int(v)+k]
	if k == 2 {
		f0, f1 := f[0], f[1]
		for _, i := range rows {
			a := acc[int(i)*2 : int(i)*2+2]
			a[0] += f0
			a[1] += f1
		}
		return
	}
	for _, i := range rows {
		a := acc[int(i)*k : int(i)*k+k]
		for j, x := range f {
			a[j] += x
		}
	}
}

// load copies raw's rows [lo, hi) into the router's columns.
func (r *router) load(raw blas64.General, lo, hi int) {
	for j, c := range r.cols {
		c = c[:hi-lo]
		for i := range c {
			c[i] = raw.Data[(lo+i)*raw.Stride+j]
		}
	}
}

// tree adds tree t's leaf value to acc[i] for each of the m rows (in a
// probability forest, the leaf's class fractions to row i's k entries).
func (r *router) tree(t []node, m int, acc []float64) {
	rows := r.lists[0][:m]
	for i := range rows {
		rows[i] = int32(i)
	}
	r.stack = append(r.stack[:0], frame{node: 0, lo: 0, hi: int32(m)})
	for len(r.stack) > 0 {
		f := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		nd := &t[f.node]
		src := r.lists[f.depth&1][f.lo:f.hi]
		if nd.feat < 0 {
			if r.k > 0 {
				r.addFracs(nd.v, src, acc)
				continue
			}
			for _, i := range src {
				acc[i] += nd.v
			}
			continue
		}
		dst := r.lists[(f.depth+1)&1][f.lo:f.hi]
		var nl int32
		if r.na {
			nl = int32(splitRows(dst, src, r.cols[nd.feat], nd.v, nd.kids&1))
		} else {
			nl = int32(splitObserved(dst, src, r.cols[nd.feat], nd.v))
		}
		k := nd.kids >> 1
		r.child(t, k+1, dst[nl:], frame{node: k + 1, lo: f.lo + nl, hi: f.hi, depth: f.depth + 1}, acc)
		r.child(t, k, dst[:nl], frame{node: k, lo: f.lo, hi: f.lo + nl, depth: f.depth + 1}, acc)
	}
}

// child handles the rows of child k of a split: a leaf's value is added
// to them at once, a split is pushed to visit; no rows, nothing.
func (r *router) child(t []node, k uint32, rows []int32, f frame, acc []float64) {
	switch {
	case len(rows) == 0:
	case t[k].feat < 0 && r.k > 0:
		r.addFracs(t[k].v, rows, acc)
	case t[k].feat < 0:
		v := t[k].v
		for _, i := range rows {
			acc[i] += v
		}
	default:
		r.stack = append(r.stack, f)
	}
}

// splitRows writes the rows of src going to child 0 (x ≤ v, or NaN when
// naSide is 0) to the front of dst and the others to its back, and
// returns how many went to child 0. The order within a child does not
// matter: each row receives one value per tree.
//
//go:noinline
func splitRows(dst, src []int32, col []float64, v float64, naSide uint32) int {
	i0, i1 := 0, len(src)-1
	dst = dst[:len(src)]
	for _, i := range src {
		x := col[i]
		s := int(b2u(x > v) | b2u(x != x)&naSide)
		dst[i0+s*(i1-i0)] = i
		i0 += 1 - s
		i1 -= s
	}
	return i0
}

// splitObserved is splitRows for rows without NaN.
//
//go:noinline
func splitObserved(dst, src []int32, col []float64, v float64) int {
	i0, i1 := 0, len(src)-1
	dst = dst[:len(src)]
	for _, i := range src {
		s := int(b2u(col[i] > v))
		dst[i0+s*(i1-i0)] = i
		i0 += 1 - s
		i1 -= s
	}
	return i0
}
