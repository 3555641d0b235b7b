package boost

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScreeningIsExact checks that screening candidates in float64 never
// changes a tree: on data sets with heavy ties, NaN, targets scaled from
// 1e-25 to 1e15 and assorted λ, α and min_child_weight, every tree grown
// with screening equals the tree grown by evaluating every candidate
// exactly.
func TestScreeningIsExact(t *testing.T) {
	checkScreening(t, screenCase{seed: 9, dMin: 1, dSpan: 5, naCol: func(int) bool { return true }, alpha: true})
}

// TestScreeningIsExactPaired is TestScreeningIsExact with columns
// without missing values next to each other and to columns with them, so
// that joint scans of two features (scanTwo) and of both directions
// (scanBoth) are compared with exhaustive evaluation too.
func TestScreeningIsExactPaired(t *testing.T) {
	checkScreening(t, screenCase{seed: 19, dMin: 2, dSpan: 6, naCol: func(j int) bool { return j%3 == 2 }})
}

// screenCase draws the data sets of a screening test: 24 of them, each
// with dMin + IntN(dSpan) columns, NaN at rate 0.25 in the columns naCol
// accepts, and α drawn too when alpha.
type screenCase struct {
	seed        uint64
	dMin, dSpan int
	naCol       func(j int) bool
	alpha       bool
}

// checkScreening grows every data set of c with and without screening
// and fails at the first tree that differs.
func checkScreening(t *testing.T, c screenCase) {
	t.Helper()
	rng := newRNG(c.seed)
	for k := range 24 {
		n, d := 20+rng.IntN(200), c.dMin+rng.IntN(c.dSpan)
		scale := math.Pow(10, float64(rng.IntN(41)-25))
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		for i := range n {
			for j := range d {
				v := math.Round(rng.NormFloat64()*float64(1+k%4)) / float64(1+k%3)
				if c.naCol(j) && rng.Float64() < 0.25 {
					v = math.NaN()
				}
				X.Set(i, j, v)
			}
			y[i] = scale * (rng.NormFloat64() + float64(i%3))
		}
		p := DefaultParams()
		p.Rounds, p.MaxDepth = 4, 1+rng.IntN(5)
		p.Lambda = []float64{0, 0.5, 1, 3}[rng.IntN(4)]
		if c.alpha {
			p.Alpha = []float64{0, 0, scale / 10, scale}[rng.IntN(4)]
		}
		p.MinChildWeight = []float64{0, 1, 2.5, 6}[rng.IntN(4)]
		p.BaseScore = scale * 0.3
		a, b := growBoth(t, X, y, p)
		for r := range a {
			if err := equalTrees(&a[r], &b[r]); err != nil {
				t.Fatalf("data set %d (n=%d d=%d scale=%g %+v), round %d: %v", k, n, d, scale, p, r, err)
			}
		}
	}
}

// growBoth fits p with and without screening and returns both tree lists.
func growBoth(t *testing.T, X *mat.Dense, y []float64, p Params) (screened, exhaustive []tree) {
	t.Helper()
	for _, ex := range []bool{false, true} {
		ds, err := newDataset(X, y)
		if err != nil {
			t.Fatal(err)
		}
		g := newGrower(ds, p)
		g.sc.exhaustive = ex
		pred := make([]float32, ds.n)
		for i := range pred {
			pred[i] = float32(p.BaseScore)
		}
		var trees []tree
		for range p.Rounds {
			for i, yi := range ds.y {
				g.grad[i] = pred[i] - yi
			}
			tr := g.grow()
			for i, id := range g.final {
				pred[i] += tr.resolve(id)
			}
			trees = append(trees, tr)
		}
		if ex {
			exhaustive = trees
		} else {
			screened = trees
		}
	}
	return screened, exhaustive
}

// equalTrees reports the first difference between two trees.
func equalTrees(a, b *tree) error {
	if len(a.nodes) != len(b.nodes) {
		return fmt.Errorf("%d nodes vs %d", len(a.nodes), len(b.nodes))
	}
	for i := range a.nodes {
		if a.nodes[i] != b.nodes[i] {
			return fmt.Errorf("node %d: %+v vs %+v", i, a.nodes[i], b.nodes[i])
		}
	}
	return nil
}

// TestScreenBound checks the screening inequality on its hardest cases:
// for random node and candidate statistics (with strong cancellation
// between the children's gains and the root gain), whenever XGBoost's
// float32 loss change beats a best value one float32 step below it, the
// float64 screen must let the candidate through.
func TestScreenBound(t *testing.T) {
	rng := newRNG(12)
	var scorers []*scorer
	for _, lambda := range []float64{0, 1, 0.37, 5} {
		for _, alpha := range []float64{0, 0.1, 2} {
			p := DefaultParams()
			p.Lambda, p.Alpha = lambda, alpha
			scorers = append(scorers, newScorer(p, 5000))
		}
	}
	for range 200000 {
		s := scorers[rng.IntN(len(scorers))]
		n := 2 + rng.IntN(4999)
		scale := math.Pow(10, float64(rng.IntN(40)-20))
		h1 := 1 + rng.IntN(n-1)
		g1 := scale * rng.NormFloat64() * float64(h1)
		// the other side nearly proportional: tiny loss changes
		g2 := g1*float64(n-h1)/float64(h1)*(1+rng.NormFloat64()*math.Pow(10, -float64(rng.IntN(9)))) + scale*rng.NormFloat64()*1e-3
		ns := nodeStats{g: g1 + g2, h: n}
		ns.root = s.gain(ns.g, ns.h)
		loss := s.gain(g1, h1) + s.gain(ns.g-g1, n-h1) - ns.root
		if math.IsInf(float64(loss), 0) || math.IsNaN(float64(loss)) {
			continue
		}
		best := math.Nextafter32(loss, float32(math.Inf(-1)))
		t1, t2 := g1, ns.g-g1
		if s.alpha != 0 {
			t1, t2 = s.thresholdL1(t1), s.thresholdL1(t2)
		}
		if s.screen(t1, h1, t2, n-h1) < s.bar(best, float64(ns.root)) {
			t.Fatalf("screen rejects a winner: g1=%g h1=%d g=%g h=%d λ=%g α=%g loss %g best %g",
				g1, h1, ns.g, n, s.lambda, s.alpha, loss, best)
		}
	}
}
