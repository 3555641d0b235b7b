package ctree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

func rng0() *rand.Rand { return rand.New(rand.NewPCG(7, 7)) }

// linearData draws n rows of d standard normal columns with
// y = x1 + N(0, 0.25).
func linearData(n, d int, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = X.At(i, 0) + 0.5*rng.NormFloat64()
	}
	return X, y
}

// TestBadInput: invalid data and parameters yield errors wrapping the
// package's sentinels, never a panic.
func TestBadInput(t *testing.T) {
	X, y := linearData(50, 3, rng0())
	withInf := mat.DenseCopyOf(X)
	withInf.Set(4, 1, math.Inf(-1))
	nanY := append([]float64(nil), y...)
	nanY[3] = math.NaN()
	infY := append([]float64(nil), y...)
	infY[0] = math.Inf(1)
	bad := func(f func(*Params)) Params { p := PaperDefaults(); f(&p); return p }
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		p    Params
		rng  *rand.Rand
		want error
	}{
		{"NaN in y", X, nanY, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"Inf in y", X, infY, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"Inf in X", withInf, y, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"nil X", nil, y, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"empty X", &mat.Dense{}, nil, PaperDefaults(), rng0(), learnerr.ErrInput},
		{"short y", X, y[:10], PaperDefaults(), rng0(), learnerr.ErrInput},
		{"nil rng", X, y, PaperDefaults(), nil, learnerr.ErrInput},
		{"MinBucket 0", X, y, bad(func(p *Params) { p.MinBucket = 0 }), rng0(), learnerr.ErrSetting},
		{"MinCriterion 1.5", X, y, bad(func(p *Params) { p.MinCriterion = 1.5 }), rng0(), learnerr.ErrSetting},
		{"MinCriterion NaN", X, y, bad(func(p *Params) { p.MinCriterion = math.NaN() }), rng0(), learnerr.ErrSetting},
		{"MinProb -1", X, y, bad(func(p *Params) { p.MinProb = -1 }), rng0(), learnerr.ErrSetting},
		{"MinSplit -1", X, y, bad(func(p *Params) { p.MinSplit = -1 }), rng0(), learnerr.ErrSetting},
		{"MaxDepth -1", X, y, bad(func(p *Params) { p.MaxDepth = -1 }), rng0(), learnerr.ErrSetting},
		{"MaxSurrogate -1", X, y, bad(func(p *Params) { p.MaxSurrogate = -1 }), rng0(), learnerr.ErrSetting},
		{"SplitTry 0", X, y, bad(func(p *Params) { p.SplitTry = 0 }), rng0(), learnerr.ErrSetting},
		{"TestType 9", X, y, bad(func(p *Params) { p.TestType = 9 }), rng0(), learnerr.ErrSetting},
		{"Missing 9", X, y, bad(func(p *Params) { p.Missing = 9 }), rng0(), learnerr.ErrSetting},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Fit(context.Background(), tc.X, tc.y, tc.p, tc.rng)
			if !errors.Is(err, tc.want) || tr != nil {
				t.Errorf("Fit: tree %v, error %v; want %v", tr != nil, err, tc.want)
			}
		})
	}
}

// TestPredictBadInput: a test set with the wrong width, no rows or an
// infinite value is rejected.
func TestPredictBadInput(t *testing.T) {
	X, y := linearData(100, 3, rng0())
	tr, err := Fit(context.Background(), X, y, PaperDefaults(), rng0())
	if err != nil {
		t.Fatal(err)
	}
	inf := mat.DenseCopyOf(X)
	inf.Set(0, 2, math.Inf(1))
	for _, tc := range []struct {
		name string
		X    *mat.Dense
		want error
	}{
		{"too few columns", mat.NewDense(2, 2, nil), learnerr.ErrInput},
		{"too many columns", mat.NewDense(2, 4, nil), learnerr.ErrInput},
		{"nil", nil, learnerr.ErrInput},
		{"empty", &mat.Dense{}, learnerr.ErrInput},
		{"Inf", inf, learnerr.ErrInput},
	} {
		if _, err := tr.Predict(context.Background(), tc.X); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestModelShape checks what package learn's adapter relies on: Fit
// rejects bad Params with learnerr.ErrSetting, RootSplit names the
// root's split, and Predict honours a cancelled ctx.
func TestModelShape(t *testing.T) {
	X, y := linearData(200, 3, rng0())
	ctx := context.Background()
	bad := PaperDefaults()
	bad.MinBucket = 0
	if _, err := Fit(ctx, X, y, bad, rng0()); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("Fit(MinBucket 0) error %v, want learnerr.ErrSetting", err)
	}
	got, err := Fit(ctx, X, y, PaperDefaults(), rng0())
	if err != nil {
		t.Fatal(err)
	}
	root := got.Root()
	if j, thr, ok := got.RootSplit(); !ok || root.Leaf || j != root.Feature || thr != root.Threshold || j != 0 {
		t.Errorf("RootSplit() = %d, %v, %v; want %d, %v (the signal column 0)", j, thr, ok, root.Feature, root.Threshold)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := got.Predict(cancelled, X); !errors.Is(err, context.Canceled) {
		t.Errorf("Predict(cancelled) error %v, want context.Canceled", err)
	}
}

// TestDegenerateData: data partykit cannot split give a single leaf that
// predicts the training mean, and uninformative columns are ignored.
func TestDegenerateData(t *testing.T) {
	nan := math.NaN()
	X, y := linearData(200, 3, rng0())
	mean := func(v []float64) float64 {
		s := 0.0
		for _, u := range v {
			s += u
		}
		return s / float64(len(v))
	}
	fill := func(X *mat.Dense, j int, v float64) *mat.Dense {
		out := mat.DenseCopyOf(X)
		for i := range out.RawMatrix().Rows {
			out.Set(i, j, v)
		}
		return out
	}
	allNA := fill(fill(fill(X, 0, nan), 1, nan), 2, nan)
	allConst := fill(fill(fill(X, 0, 1), 1, 2), 2, 3)
	constY := make([]float64, 200)
	for i := range constY {
		constY[i] = 4.5
	}
	cases := []struct {
		name   string
		X      *mat.Dense
		y      []float64
		p      Params
		leaf   bool
		tested bool // the root was tested
	}{
		{"every column NA", allNA, y, PaperDefaults(), true, true},
		{"every column constant", allConst, y, PaperDefaults(), true, true},
		{"constant y", X, constY, PaperDefaults(), true, true},
		{"n < MinSplit", X.Slice(0, 15, 0, 3).(*mat.Dense), y[:15], PartykitDefaults(), true, false},
		{"one row", X.Slice(0, 1, 0, 3).(*mat.Dense), y[:1], Params{MinBucket: 1, SplitTry: 1}, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Fit(context.Background(), tc.X, tc.y, tc.p, rng0())
			if err != nil {
				t.Fatal(err)
			}
			root := tr.Root()
			if root.Leaf != tc.leaf || (root.Tests != nil) != tc.tested {
				t.Errorf("leaf %v tested %v, want %v %v", root.Leaf, root.Tests != nil, tc.leaf, tc.tested)
			}
			if tc.leaf && !relClose(root.Value, mean(tc.y), 1e-12) {
				t.Errorf("leaf value %v, want mean %v", root.Value, mean(tc.y))
			}
			pred, err := tr.Predict(context.Background(), tc.X)
			if err != nil {
				t.Fatal(err)
			}
			if tc.leaf && pred[0] != root.Value {
				t.Errorf("prediction %v, want %v", pred[0], root.Value)
			}
		})
	}
}

// TestInformativeAmongJunk: an all-NA column, a constant column and a
// column observed on one row are untested, and the informative column is
// split on; the Bonferroni k counts tested columns only.
func TestInformativeAmongJunk(t *testing.T) {
	rng := rng0()
	X := mat.NewDense(300, 4, nil)
	y := make([]float64, 300)
	for i := range 300 {
		x := rng.NormFloat64()
		X.SetRow(i, []float64{math.NaN(), 3, math.NaN(), x})
		y[i] = 2*x + 0.1*rng.NormFloat64()
	}
	X.Set(7, 2, 1)
	tr, err := Fit(context.Background(), X, y, PaperDefaults(), rng)
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	if root.Feature != 3 {
		t.Fatalf("root splits on x%d, want x4", root.Feature+1)
	}
	for j, vt := range root.Tests {
		if vt.Tested != (j == 3) {
			t.Errorf("x%d tested %v", j+1, vt.Tested)
		}
	}
	if vt := root.Tests[3]; vt.AdjPValue != vt.PValue {
		t.Errorf("with one tested column the adjusted p %v should equal p %v", vt.AdjPValue, vt.PValue)
	}
}

// TestCancelled: a cancelled context stops Fit with the context's error.
func TestCancelled(t *testing.T) {
	X, y := linearData(500, 3, rng0())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, X, y, PaperDefaults(), rng0()); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
