package tree

import (
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMIAMissingnessSplit: when Y = 1{X1 is NA} (the missingness itself
// is the signal), MIA's best split is "observed vs NA" (Threshold +Inf,
// NA right) and it predicts exactly 0 and 1; at prediction NA rows go
// right.
func TestMIAMissingnessSplit(t *testing.T) {
	rng := newRNG(11)
	n := 200
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		X.Set(i, 0, rng.Float64())
		if i%4 == 0 {
			X.Set(i, 0, math.NaN())
			y[i] = 1
		}
	}
	tr, err := Fit(context.Background(), X, y, Params{Strategy: MIA, MinBucket: 5}, rng)
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Root()
	if !math.IsInf(r.Threshold, 1) || r.MissingLeft || tr.NumLeaves() != 2 {
		t.Fatalf("root %+v, want the observed-vs-NA split, NA right", r)
	}
	got, _ := tr.Predict(context.Background(), mat.NewDense(2, 1, []float64{0.5, math.NaN()}))
	if got[0] != 0 || got[1] != 1 {
		t.Errorf("predictions %v, want [0 1]", got)
	}
}

// TestMIANASide: NA rows whose Y looks like the high side are sent there
// by MIA (and by Block), with the side stored for prediction.
func TestMIANASide(t *testing.T) {
	X, y := sideData()
	for _, st := range []Strategy{MIA, Block} {
		tr, err := Fit(context.Background(), X, y, Params{Strategy: st, MinBucket: 2, MaxDepth: 1}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		r := tr.Root()
		if r.MissingLeft || !r.MissingSeen {
			t.Errorf("%v: NA left %v (seen %v), want right", st, r.MissingLeft, r.MissingSeen)
		}
		got, _ := tr.Predict(context.Background(), mat.NewDense(1, 1, []float64{math.NaN()}))
		if want := tr.Nodes()[r.Right].Value; got[0] != want {
			t.Errorf("%v: NA predicted %v, want the right leaf's %v", st, got[0], want)
		}
	}
}

// sideData: x = 1..10 with y = 0 below 5.5 and 10 above, plus three NA
// rows with y = 9 (they belong with the high side), so every strategy
// splits at 5.5 but only error-driven ones send NA right; the low side is
// larger (5 + 1 extra row at x = 0) for the majority rule.
func sideData() (*mat.Dense, []float64) {
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, math.NaN(), math.NaN(), math.NaN()}
	y := []float64{0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 9, 9, 9}
	return mat.NewDense(len(xs), 1, xs), y
}

// TestMajoritySide: the majority rule sends NA to the side with more
// observed rows (left here), whatever their Y; training leaf means
// include them.
func TestMajoritySide(t *testing.T) {
	X, y := sideData()
	tr, err := Fit(context.Background(), X, y, Params{Strategy: Majority, MinBucket: 2, MaxDepth: 1}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Root()
	nodes := tr.Nodes()
	if r.Threshold != 5.5 || !r.MissingLeft || r.ObservedLeft != 6 || r.ObservedRight != 5 {
		t.Fatalf("root %+v, want x < 5.5 with NA left and 6/5 observed rows", r)
	}
	if l := nodes[r.Left]; l.N != 9 || math.Abs(l.Value-27.0/9) > 1e-12 {
		t.Errorf("left leaf n %d mean %v, want 9 rows with mean 3", l.N, l.Value)
	}
}

// TestUnseenNA: a split that saw no NA at training sends NA rows to the
// child with more training entries, for MIA, Block and Majority.
func TestUnseenNA(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	y := []float64{0, 0, 0, 5, 5, 5, 5, 5, 5, 5}
	X := mat.NewDense(10, 1, xs)
	for _, st := range []Strategy{MIA, Block, Majority} {
		tr, _ := Fit(context.Background(), X, y, Params{Strategy: st, MinBucket: 1, MaxDepth: 1}, newRNG(1))
		if r := tr.Root(); r.MissingSeen || r.MissingLeft {
			t.Errorf("%v: root %+v, want unseen NA going right (7 rows vs 3)", st, r)
		}
		got, _ := tr.Predict(context.Background(), mat.NewDense(1, 1, []float64{math.NaN()}))
		if got[0] != 5 {
			t.Errorf("%v: NA predicted %v, want 5", st, got[0])
		}
	}
}

// TestProbSplit: Prob sends NA rows left with probability nL/(nL+nR)
// at training and at prediction (binomial bounds), and Predict is
// reproducible.
func TestProbSplit(t *testing.T) {
	rng := newRNG(12)
	n := 4000
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	nNA := 0
	for i := range n {
		x := rng.Float64()
		y[i] = 0
		if x > 0.3 {
			y[i] = 1
		}
		if rng.Float64() < 0.3 {
			x = math.NaN()
			nNA++
		}
		X.Set(i, 0, x)
	}
	tr, err := Fit(context.Background(), X, y, Params{Strategy: Prob, MinBucket: 5, MaxDepth: 1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Root()
	nodes := tr.Nodes()
	pl := float64(r.ObservedLeft) / float64(r.ObservedLeft+r.ObservedRight)
	if r.ProbLeft != pl {
		t.Errorf("ProbLeft %v, want nL/(nL+nR) = %v", r.ProbLeft, pl)
	}
	sd := math.Sqrt(float64(nNA) * pl * (1 - pl))
	if sent := nodes[r.Left].N - r.ObservedLeft; math.Abs(float64(sent)-pl*float64(nNA)) > 4*sd {
		t.Errorf("training: %d of %d NA rows sent left, expected %.0f ± %.0f", sent, nNA, pl*float64(nNA), sd)
	}
	m := 20000
	Xt := mat.NewDense(m, 1, nil)
	for i := range m {
		Xt.Set(i, 0, math.NaN())
	}
	a, _ := tr.Predict(context.Background(), Xt)
	b, _ := tr.Predict(context.Background(), Xt)
	left := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("Predict is not reproducible")
		}
		if a[i] == nodes[r.Left].Value {
			left++
		}
	}
	if sdp := math.Sqrt(float64(m) * pl * (1 - pl)); math.Abs(float64(left)-pl*float64(m)) > 4*sdp {
		t.Errorf("prediction: %d of %d NA rows sent left, expected %.0f ± %.0f", left, m, pl*float64(m), sdp)
	}
}

// TestPerfectSurrogate: with X2 an exact copy of X1, the surrogate on X2
// agrees fully (agree = adj = 1) and a row missing X1 is predicted as if
// X1 were X2.
func TestPerfectSurrogate(t *testing.T) {
	rng := newRNG(13)
	n := 300
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		x := rng.NormFloat64()
		X.SetRow(i, []float64{x, x, rng.NormFloat64()})
		y[i] = x*x + 0.1*rng.NormFloat64()
		if i%5 == 0 {
			X.Set(i, 0, math.NaN())
		}
	}
	tr, err := Fit(context.Background(), X, y, PaperDefaults(), rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, nd := range tr.Nodes() {
		if nd.Leaf || nd.Feature != 0 {
			continue
		}
		if len(nd.Surrogates) == 0 || nd.Surrogates[0].Feature != 1 || nd.Surrogates[0].Agree != 1 || nd.Surrogates[0].Adj != 1 {
			t.Errorf("split on x1: surrogates %+v, want x2 first with agree = adj = 1", nd.Surrogates)
		}
	}
	Xt := mat.NewDense(200, 3, nil)
	Xm := mat.NewDense(200, 3, nil)
	for i := range 200 {
		x := rng.NormFloat64()
		Xt.SetRow(i, []float64{x, x, 0})
		Xm.SetRow(i, []float64{math.NaN(), x, 0})
	}
	a, _ := tr.Predict(context.Background(), Xt)
	b, _ := tr.Predict(context.Background(), Xm)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: %v with x1, %v without", i, a[i], b[i])
		}
	}
}

// TestCPPrunes: a larger cp never gives more leaves, every kept split has
// a complexity above cp (rpart's rule), and cp = 1 leaves a single leaf
// (no split removes more than the root's whole deviance).
func TestCPPrunes(t *testing.T) {
	X, y := randomData(500, 4, 0.2, newRNG(14))
	prev := math.MaxInt
	for _, cp := range []float64{0, 0.001, 0.01, 0.05, 0.2, 1} {
		p := Params{Strategy: Surrogate, MinBucket: 5, MinSplit: 15, CP: cp, MaxSurrogate: 5}
		tr, err := Fit(context.Background(), X, y, p, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		if tr.NumLeaves() > prev {
			t.Errorf("cp %v: %d leaves, more than at a smaller cp (%d)", cp, tr.NumLeaves(), prev)
		}
		prev = tr.NumLeaves()
		for _, nd := range tr.Nodes() {
			if !nd.Leaf && nd.CP <= cp {
				t.Errorf("cp %v: kept a split of complexity %v", cp, nd.CP)
			}
		}
	}
	if prev != 1 {
		t.Errorf("cp = 1: %d leaves, want 1", prev)
	}
}

// TestConcurrentPredict: a fitted tree is read-only; concurrent Predict
// calls (run under -race) return identical results, Prob included.
func TestConcurrentPredict(t *testing.T) {
	X, y := randomData(300, 4, 0.3, newRNG(18))
	for _, st := range []Strategy{Surrogate, Prob, MIA} {
		tr, err := Fit(context.Background(), X, y, Params{Strategy: st, MinBucket: 5, MaxSurrogate: 5}, newRNG(19))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tr.Predict(context.Background(), X)
		done := make(chan []float64)
		for range 4 {
			go func() {
				got, _ := tr.Predict(context.Background(), X)
				done <- got
			}()
		}
		for range 4 {
			if got := <-done; !slices.Equal(got, want) {
				t.Errorf("%v: concurrent Predict differs", st)
			}
		}
	}
}
