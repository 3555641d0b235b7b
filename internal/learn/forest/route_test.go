package forest

import (
	"math"
	"testing"

	"github.com/misslab/misslab/internal/learn/tree"
)

// walk is the plain one-row walk the router must agree with: x ≤ v goes
// to child 0, x > v to child 1, NaN to the side stored in bit 0 of kids.
func walk(t []node, row []float64) float64 {
	k := uint32(0)
	for t[k].feat >= 0 {
		nd := t[k]
		x := row[nd.feat]
		switch {
		case x <= nd.v:
			k = nd.kids >> 1
		case x > nd.v:
			k = nd.kids>>1 + 1
		default:
			k = nd.kids>>1 + nd.kids&1
		}
	}
	return t[k].v
}

// TestRouterMatchesWalk: Predict, which pushes blocks of rows down each
// tree, returns bit for bit the tree-ordered mean of one-row walks, over
// several blocks (5000 rows, blocks of rowBlock), with NaN under MIA and
// with 1 and 3 threads.
func TestRouterMatchesWalk(t *testing.T) {
	tr, te := goldenData(5, 400, 5000)
	for _, st := range []tree.Strategy{tree.NoMissing, tree.MIA} {
		Xtr, Xte := tr.x, te.x
		if st == tree.MIA {
			Xtr, Xte = tr.withNA(), te.withNA()
		}
		for _, threads := range []int{1, 3} {
			p := RangerDefaults()
			p.NumTrees, p.Strategy, p.Threads = 40, st, threads
			f := fit(t, Xtr, tr.y, p, 3)
			got := predict(t, f, Xte)
			n, _ := Xte.Dims()
			for i := range n {
				var want float64
				for _, tr := range f.trees {
					want += walk(tr, Xte.RawRowView(i))
				}
				want /= float64(len(f.trees))
				if math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("%v, %d threads: row %d: router %v, walk %v", st, threads, i, got[i], want)
				}
			}
		}
	}
}
