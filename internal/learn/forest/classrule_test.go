package forest

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/tree"
)

// TestClassForestMatchesReference grows probability forests with
// FitClass and with the naive reference of classref_test.go (ranger's
// TreeProbability rules written out, MIA added as Fit documents) on the
// same draws, and requires the same number of nodes and bit-identical
// probabilities on the training rows and on fresh rows: complete and
// tied values, NA under MIA (in training and at prediction only), two,
// three and four classes (one code absent), every column a candidate,
// fully grown trees, a depth bound and subsampling without replacement.
func TestClassForestMatchesReference(t *testing.T) {
	cases := []struct {
		name  string
		n, k  int
		grid  float64 // > 0: round X to multiples of 1/grid (ties)
		na    bool    // NaN on X1..X3 and Strategy MIA
		naNew bool    // NaN only in the fresh rows (MIA, no NA in training)
		tweak func(*Params)
	}{
		{name: "binary", n: 150, k: 2},
		{name: "binary/grid", n: 150, k: 2, grid: 2},
		{name: "three", n: 150, k: 3},
		{name: "three/grid/mns1", n: 120, k: 3, grid: 4, tweak: func(p *Params) { p.MinNodeSize = 1 }},
		{name: "four-one-absent", n: 100, k: 4},
		{name: "mia", n: 150, k: 2, na: true},
		{name: "mia/three/grid", n: 150, k: 3, na: true, grid: 2},
		{name: "mia/unseen-na", n: 120, k: 2, naNew: true},
		{name: "mtry-all/depth3", n: 150, k: 3, tweak: func(p *Params) { p.Mtry, p.MaxDepth = quadD, 3 }},
		{name: "noreplace/mns3", n: 150, k: 2, na: true, grid: 2,
			tweak: func(p *Params) { p.Replace, p.SampleFraction, p.MinNodeSize = false, 0.632, 3 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for rep := range 3 {
				X, y, Xnew := refCaseData(uint64(rep), tc.n, tc.k, tc.grid, tc.na, tc.naNew)
				p := RangerClassDefaults()
				p.NumTrees = 6
				if tc.na || tc.naNew {
					p.Strategy = tree.MIA
				}
				if tc.tweak != nil {
					tc.tweak(&p)
				}
				m, err := FitClass(context.Background(), X, y, tc.k, p, rand.New(rand.NewPCG(uint64(rep), 5)))
				if err != nil {
					t.Fatal(err)
				}
				ref := refFitClass(X, y, tc.k, p, rand.New(rand.NewPCG(uint64(rep), 5)))
				if m.NumNodes() != ref.numNodes() {
					t.Fatalf("rep %d: %d nodes, the reference %d", rep, m.NumNodes(), ref.numNodes())
				}
				for _, Z := range []*mat.Dense{X, Xnew} {
					got, err := m.PredictProba(context.Background(), Z)
					if err != nil {
						t.Fatal(err)
					}
					if i, j, ok := sameBits(got, ref.predict(Z)); !ok {
						t.Fatalf("rep %d: row %d class %d: %v, the reference %v", rep, i, j, got.At(i, j), ref.predict(Z).At(i, j))
					}
				}
			}
		})
	}
}

// refCaseData draws n training rows with k classes (the 4-class case
// uses codes 0..2 only), rounded to the grid when grid > 0, with NaN on
// X1..X3 in training when na and in the fresh rows when na or naNew.
func refCaseData(seed uint64, n, k int, grid float64, na, naNew bool) (X *mat.Dense, y []float64, Xnew *mat.Dense) {
	kk := min(k, 3)
	tr, te := classData(seed, kk, n, 80)
	r := rand.New(rand.NewPCG(seed, 77))
	for _, s := range []classSet{tr, te} {
		if grid > 0 {
			roundDense(s.x, grid)
		}
		for i := range s.y {
			for j := range 3 {
				if (na || (naNew && s.x == te.x)) && r.Float64() < 0.25 {
					s.x.Set(i, j, math.NaN())
				}
			}
		}
	}
	return tr.x, tr.y, te.x
}

// sameBits reports whether a and b are bit-identical, else the first
// differing entry.
func sameBits(a, b *mat.Dense) (int, int, bool) {
	n, k := a.Dims()
	for i := range n {
		for j := range k {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// rootSplit grows the root of a probability tree on the rows given
// (repeats weigh), every column a candidate, and returns its split:
// column, threshold, NA side and Gini decrease; ok is false for a leaf.
func rootSplit(t *testing.T, x [][]float64, y []float64, k int, rows []int, mia bool) (feat int, thr float64, naSide uint32, gain float64, ok bool) {
	t.Helper()
	X := mat.NewDense(len(x), len(x[0]), nil)
	for i, r := range x {
		X.SetRow(i, r)
	}
	p := RangerClassDefaults()
	p.Mtry, p.MinNodeSize, p.MaxDepth = len(x[0]), 1, 1
	if mia {
		p.Strategy = tree.MIA
	}
	g := newClassGrower(newData(X, y), p, k)
	nodes, _ := g.growTree(rows, draw{rand.NewPCG(1, 2)})
	if nodes[0].feat < 0 {
		return 0, 0, 0, 0, false
	}
	// the root's decrease, scored again from the same in-bag order
	m := g.bag(rows, draw{rand.NewPCG(1, 2)})
	cnt := make([]int, k)
	n := 0
	for _, r := range rows {
		cnt[int(y[r])]++
		n++
	}
	for r, w := range g.wc {
		g.cw[r] = classWeight{int32(w.cnt), g.cls[r]}
	}
	c, _ := g.bestSplit(0, m, n, cnt)
	return int(nodes[0].feat), nodes[0].v, nodes[0].kids & 1, c.gain, true
}

// TestGiniSplitHandWorked checks the root split, threshold, NA side and
// decrease Σ L²/N_L + Σ R²/N_R on small nodes worked out by hand.
func TestGiniSplitHandWorked(t *testing.T) {
	nan := math.NaN()
	next := math.Nextafter(1, 2)
	q := func(a, b float64) float64 { return a / b } // a quotient in float64, as ranger's, not as an exact constant
	a, b := 0.1, 0.2
	col := func(v ...float64) [][]float64 {
		out := make([][]float64, len(v))
		for i, x := range v {
			out[i] = []float64{x}
		}
		return out
	}
	cases := []struct {
		name   string
		x      [][]float64
		y      []float64
		k      int
		rows   []int // nil: each row once
		mia    bool
		feat   int
		thr    float64
		naSide uint32
		gain   float64
	}{
		// 2²/2 + 2²/2
		{name: "separable", x: col(1, 2, 3, 4), y: []float64{0, 0, 1, 1}, k: 2, thr: 2.5, gain: 4},
		// 1.5: 1 + (1+9)/4 = 3.5; 2.5: 1 + 5/3; 3.5: 5/3 + 2 = 11/3 (best); 4.5: 2 + 1
		{name: "best-inner", x: col(1, 2, 3, 4, 5), y: []float64{0, 1, 0, 1, 1}, k: 2, thr: 3.5, gain: q(4, 2) + q(5, 3)},
		// 1.5 and 3.5 both 1 + 5/3 (same float expression): the lower
		// wins; NA would go to the larger child
		{name: "tie-lower", x: col(1, 2, 3, 4), y: []float64{0, 1, 1, 0}, k: 2, thr: 1.5, naSide: 1, gain: q(5, 3) + 1},
		// row 0 three times: 1.5: 9/3 + 5/3 (best); 2.5: 10/4 + 1; 3.5: 13/5 + 1
		{name: "repeats-weigh", x: col(1, 2, 3, 4), y: []float64{0, 1, 1, 0}, k: 2, rows: []int{0, 0, 0, 1, 2, 3},
			thr: 1.5, naSide: 0, gain: q(5, 3) + 3}, // 3 entries each side: NA to child 0
		// 2.5 and 4.5 both 2 + 2: the lower wins
		{name: "three-classes", x: col(1, 2, 3, 4, 5, 6), y: []float64{0, 0, 1, 1, 2, 2}, k: 3, thr: 2.5, naSide: 1, gain: 4},
		// (0.1 + 0.2)/2 is 0.15000000000000002, ranger's threshold, not 0.15
		{name: "midpoint", x: col(a, b), y: []float64{0, 1}, k: 2, thr: (a + b) / 2, gain: 2},
		// (1 + next)/2 rounds to next: the lower value is the threshold
		{name: "adjacent-floats", x: col(1, next), y: []float64{0, 1}, k: 2, thr: 1, gain: 2},
		// observed vs NA: 4/2 + 4/2; 1.5 with NA right: 1 + 5/3
		{name: "mia-observed-vs-na", x: col(1, 2, nan, nan), y: []float64{0, 0, 1, 1}, k: 2, mia: true,
			thr: math.Inf(1), naSide: 1, gain: 4},
		// 1.5 with NA left: {0, 0} | {1, 1}: 2 + 2
		{name: "mia-na-left", x: col(1, 2, 3, nan), y: []float64{0, 1, 1, 0}, k: 2, mia: true, thr: 1.5, naSide: 0, gain: 4},
		// 2.5 with NA right: {0, 0} | {1, 1, 1}: 2 + 3
		{name: "mia-na-right", x: col(1, 2, 3, nan, nan), y: []float64{0, 0, 1, 1, 1}, k: 2, mia: true,
			thr: 2.5, naSide: 1, gain: 5},
		// no NA in training: NA goes to the larger child (3 entries vs 1)
		{name: "no-na-larger-child", x: col(1, 2, 3, 4), y: []float64{0, 1, 1, 1}, k: 2, mia: true, thr: 1.5, naSide: 1, gain: 4},
		// column 1 separates, column 0 is constant
		{name: "second-column", x: [][]float64{{5, 1}, {5, 2}, {5, 3}, {5, 4}}, y: []float64{0, 0, 1, 1}, k: 2,
			feat: 1, thr: 2.5, gain: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows := tc.rows
			if rows == nil {
				for i := range tc.y {
					rows = append(rows, i)
				}
			}
			feat, thr, side, gain, ok := rootSplit(t, tc.x, tc.y, tc.k, rows, tc.mia)
			if !ok {
				t.Fatal("the root is a leaf")
			}
			if feat != tc.feat || thr != tc.thr || side != tc.naSide || gain != tc.gain {
				t.Fatalf("split X%d ≤ %v (NA side %d), decrease %v; want X%d ≤ %v (NA side %d), decrease %v",
					feat+1, thr, side, gain, tc.feat+1, tc.thr, tc.naSide, tc.gain)
			}
		})
	}
}

// TestGiniDecreaseIsImpurityDrop checks, on random class counts, that
// decrease is the drop in the Gini impurity weighted by node size, up
// to the node's constant Σ c²/N: N·G(parent) − N_L·G(L) − N_R·G(R) =
// decrease − Σ c²/N, computed exactly with rationals; the float is
// within two roundings of it.
func TestGiniDecreaseIsImpurityDrop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gini := func(c []int64) *big.Rat { // N·G = N − Σ c²/N
		var n, sq int64
		for _, v := range c {
			n, sq = n+v, sq+v*v
		}
		return new(big.Rat).Sub(big.NewRat(n, 1), big.NewRat(sq, n))
	}
	for range 2000 {
		k := 2 + r.IntN(4)
		L, R, P := make([]int64, k), make([]int64, k), make([]int64, k)
		var nL, nR, sqL, sqR, sqP int64
		for j := range k {
			L[j], R[j] = r.Int64N(1000), r.Int64N(1000)
			P[j] = L[j] + R[j]
			nL, nR = nL+L[j], nR+R[j]
			sqL, sqR, sqP = sqL+L[j]*L[j], sqR+R[j]*R[j], sqP+P[j]*P[j]
		}
		if nL == 0 || nR == 0 {
			continue
		}
		drop := new(big.Rat).Sub(gini(P), gini(L))
		drop.Sub(drop, gini(R))
		want := drop.Add(drop, big.NewRat(sqP, nL+nR))
		got := decrease(sqL, int(nL), sqR, int(nR))
		w, _ := want.Float64()
		if math.Abs(got-w) > 4*math.Abs(w)*0x1p-53 {
			t.Fatalf("L %v R %v: decrease %v, exact %v", L, R, got, want.FloatString(20))
		}
	}
}
