package ctree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// stepData has x = 1..40 observed with y = 0 for x ≤ cut and 10 above,
// plus nNA rows with x NA and y = 5.
func stepData(cut, nNA int) (*mat.Dense, []float64) {
	X := mat.NewDense(40+nNA, 1, nil)
	y := make([]float64, 40+nNA)
	for i := range 40 {
		X.Set(i, 0, float64(i+1))
		if i+1 > cut {
			y[i] = 10
		}
	}
	for i := 40; i < 40+nNA; i++ {
		X.Set(i, 0, math.NaN())
		y[i] = 5
	}
	return X, y
}

// TestMajority: NA rows follow the child with more observed rows, at fit
// (they count in its mean) and at predict; on a tie they go right, as
// partykit's .which.max and party's "sleft > sright" rule do.
func TestMajority(t *testing.T) {
	stump := Params{MinBucket: 1, MinSplit: 2, MaxDepth: 1, SplitTry: 1}
	for _, tc := range []struct {
		cut                 int
		left                bool
		leftMean, rightMean float64
	}{
		{20, false, 0, (20*10 + 10*5) / 30.0},
		{25, true, (10 * 5) / 35.0, 10},
		{14, false, 0, (26*10 + 10*5) / 36.0},
	} {
		X, y := stepData(tc.cut, 10)
		tr, err := Fit(context.Background(), X, y, stump, rng0())
		if err != nil {
			t.Fatal(err)
		}
		root, nodes := tr.Root(), tr.Nodes()
		if root.Threshold != float64(tc.cut) || root.MissingLeft != tc.left {
			t.Errorf("cut %d: threshold %v, NA left %v; want %v", tc.cut, root.Threshold, root.MissingLeft, tc.left)
		}
		if l, r := nodes[root.Left].Value, nodes[root.Right].Value; !relClose(l, tc.leftMean, 1e-12) || !relClose(r, tc.rightMean, 1e-12) {
			t.Errorf("cut %d: leaf means %v, %v; want %v, %v", tc.cut, l, r, tc.leftMean, tc.rightMean)
		}
		pred, _ := tr.Predict(context.Background(), mat.NewDense(1, 1, []float64{math.NaN()}))
		want := tc.rightMean
		if tc.left {
			want = tc.leftMean
		}
		if !relClose(pred[0], want, 1e-12) {
			t.Errorf("cut %d: NA row predicted %v, want %v", tc.cut, pred[0], want)
		}
	}
}

// TestRandom: under partykit's default routing, NA rows go left with the
// observed proportion: at fit the left child's NA count and at predict the
// share of NA rows reaching the left leaf are within 5 binomial standard
// errors of ProbLeft; predicting the same X twice gives the same answer.
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 3000
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	nNA := 0
	for i := range n {
		x := rng.NormFloat64() + 0.7
		y[i] = x + rng.NormFloat64()
		if rng.Float64() < 0.3 {
			x = math.NaN()
			nNA++
		}
		X.Set(i, 0, x)
	}
	p := PartykitDefaults()
	p.MaxDepth = 1
	tr, err := Fit(context.Background(), X, y, p, rng)
	if err != nil {
		t.Fatal(err)
	}
	root, nodes := tr.Root(), tr.Nodes()
	obsLeft := 0
	for i := range n {
		if v := X.At(i, 0); v <= root.Threshold {
			obsLeft++
		}
	}
	pl := root.ProbLeft
	if want := float64(obsLeft) / float64(n-nNA); pl != want {
		t.Fatalf("ProbLeft %v, want %v", pl, want)
	}
	naLeft := float64(nodes[root.Left].N - obsLeft)
	if sd := math.Sqrt(float64(nNA) * pl * (1 - pl)); math.Abs(naLeft-pl*float64(nNA)) > 5*sd {
		t.Errorf("%v of %d NA training rows went left, want %v ± %v", naLeft, nNA, pl*float64(nNA), 5*sd)
	}
	const m = 4000
	Xt := mat.NewDense(m, 1, nil)
	for i := range m {
		Xt.Set(i, 0, math.NaN())
	}
	p1, _ := tr.Predict(context.Background(), Xt)
	p2, _ := tr.Predict(context.Background(), Xt)
	left := 0
	for i := range m {
		if p1[i] != p2[i] {
			t.Fatalf("row %d: predictions %v then %v", i, p1[i], p2[i])
		}
		if p1[i] == nodes[root.Left].Value {
			left++
		}
	}
	if sd := math.Sqrt(m * pl * (1 - pl)); math.Abs(float64(left)-m*pl) > 5*sd {
		t.Errorf("%d of %d NA test rows went left, want %v ± %v", left, m, m*pl, 5*sd)
	}
}

// TestSurrogateCopy: when x2 is an exact copy of x1, the first surrogate
// of a split on either is the other, oriented the same way and cutting
// the node's rows that observe both exactly as the primary split does (its
// cut is the largest such value below the primary cut). So a training row
// observing both, with either one erased, is predicted as the complete row.
func TestSurrogateCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 600
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		x, z := rng.NormFloat64(), rng.NormFloat64()
		y[i] = x*x + 0.5*z + 0.2*rng.NormFloat64()
		a, b := x, x
		switch u := rng.Float64(); {
		case u < 0.2:
			a = math.NaN()
		case u < 0.4:
			b = math.NaN()
		}
		X.SetRow(i, []float64{a, b, z})
	}
	p := PaperDefaults()
	p.MaxSurrogate = 2
	tr, err := Fit(context.Background(), X, y, p, rng)
	if err != nil {
		t.Fatal(err)
	}
	rows := nodeRows(tr, X)
	checked := 0
	for _, nd := range tr.Nodes() {
		if nd.Leaf || nd.Feature == 2 {
			continue
		}
		s := nd.Surrogates[0]
		if s.Feature != 1-nd.Feature || !s.LowLeft || s.Threshold > nd.Threshold {
			t.Errorf("node %d split on x%d at %v: first surrogate %+v", nd.ID, nd.Feature+1, nd.Threshold, s)
		}
		for _, r := range rows[nd.ID] {
			if a, b := X.At(r, nd.Feature), X.At(r, s.Feature); !math.IsNaN(a+b) && (a <= nd.Threshold) != (b <= s.Threshold) {
				t.Errorf("node %d: row %d split differently by the surrogate", nd.ID, r)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no split on x1 or x2")
	}
	var full, miss1, miss2 []float64
	for i := range n {
		if x, z := X.At(i, 0), X.At(i, 2); !math.IsNaN(x + X.At(i, 1)) {
			full = append(full, x, x, z)
			miss1 = append(miss1, math.NaN(), x, z)
			miss2 = append(miss2, x, math.NaN(), z)
		}
	}
	m := len(full) / 3
	pf, _ := tr.Predict(context.Background(), mat.NewDense(m, 3, full))
	p1, _ := tr.Predict(context.Background(), mat.NewDense(m, 3, miss1))
	p2, _ := tr.Predict(context.Background(), mat.NewDense(m, 3, miss2))
	for i := range m {
		if p1[i] != pf[i] || p2[i] != pf[i] {
			t.Fatalf("row %d: complete %v, x1 NA %v, x2 NA %v", i, pf[i], p1[i], p2[i])
		}
	}
}

// TestStructure: on the paper's controls every split has at least
// MinBucket observed rows per side, node sizes add up, depths and
// MaxDepth are respected, and a leaf's value is the mean of the training
// rows routed to it.
func TestStructure(t *testing.T) {
	X, y := linearData(1000, 5, rng0())
	for i := range 1000 {
		if i%3 == 0 {
			X.Set(i, 0, math.NaN())
		}
	}
	for _, depth := range []int{0, 1, 3} {
		p := PaperDefaults()
		p.MaxDepth = depth
		tr, err := Fit(context.Background(), X, y, p, rng0())
		if err != nil {
			t.Fatal(err)
		}
		rows := nodeRows(tr, X)
		for _, nd := range tr.Nodes() {
			if depth > 0 && nd.Depth > depth {
				t.Errorf("node %d at depth %d > MaxDepth %d", nd.ID, nd.Depth, depth)
			}
			if len(rows[nd.ID]) != nd.N {
				t.Errorf("node %d: N %d but %d training rows reach it", nd.ID, nd.N, len(rows[nd.ID]))
			}
			s := 0.0
			for _, r := range rows[nd.ID] {
				s += y[r]
			}
			if !relClose(nd.Value, s/float64(nd.N), 1e-12) {
				t.Errorf("node %d: value %v, mean of its rows %v", nd.ID, nd.Value, s/float64(nd.N))
			}
			if nd.Leaf {
				continue
			}
			l, r := tr.info(nd.Left), tr.info(nd.Right)
			if l.N+r.N != nd.N || l.Depth != nd.Depth+1 || r.Depth != nd.Depth+1 {
				t.Errorf("node %d: children %d + %d of %d rows", nd.ID, l.N, r.N, nd.N)
			}
			var nl, nr int
			for _, row := range rows[nd.ID] {
				switch v := X.At(row, nd.Feature); {
				case math.IsNaN(v):
				case v <= nd.Threshold:
					nl++
				default:
					nr++
				}
			}
			if nl < p.MinBucket || nr < p.MinBucket {
				t.Errorf("node %d: %d / %d observed rows per side, MinBucket %d", nd.ID, nl, nr, p.MinBucket)
			}
		}
		if depth == 1 && (tr.Depth() != 1 || tr.NumLeaves() != 2) {
			t.Errorf("stump has depth %d and %d leaves", tr.Depth(), tr.NumLeaves())
		}
	}
}

// TestConcurrentPredict: a fitted tree is read-only, so concurrent
// Predict calls (Random routing included) agree with a serial call; run
// under -race.
func TestConcurrentPredict(t *testing.T) {
	X, y := linearData(400, 3, rng0())
	for i := range 400 {
		if i%4 == 0 {
			X.Set(i, 0, math.NaN())
		}
	}
	p := PartykitDefaults()
	p.MaxSurrogate = 1
	tr, err := Fit(context.Background(), X, y, p, rng0())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tr.Predict(context.Background(), X)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := tr.Predict(context.Background(), X)
			if err == nil && !slices.Equal(got, want) {
				err = errors.New("concurrent predictions differ")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
