package tree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

func newRNG(a uint64) *rand.Rand { return rand.New(rand.NewPCG(a, 0x5eed)) }

func TestStrategyNames(t *testing.T) {
	for s := Surrogate; s <= NoMissing; s++ {
		got, err := ParseStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseStrategy("mean"); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("ParseStrategy(mean) error %v, want learnerr.ErrSetting", err)
	}
}

func TestDefaults(t *testing.T) {
	p, r := PaperDefaults(), RpartDefaults()
	if p.MinBucket != 30 || p.MinSplit != 90 || p.CP != 0 || p.MaxSurrogate != 5 || p.MaxDepth != 30 {
		t.Errorf("PaperDefaults() = %+v", p)
	}
	// rpart.control(): minsplit 20, minbucket round(20/3), cp 0.01.
	if r.MinSplit != 20 || r.MinBucket != int(math.Round(20.0/3)) || r.CP != 0.01 || r.MaxSurrogate != 5 || r.MaxDepth != 30 {
		t.Errorf("RpartDefaults() = %+v", r)
	}
}

// TestErrors checks that bad input yields the documented sentinel error,
// never a panic.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	good := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	y := []float64{1, 2, 3, 4}
	with := func(i, j int, v float64) *mat.Dense {
		X := mat.DenseCopyOf(good)
		X.Set(i, j, v)
		return X
	}
	nan, inf := math.NaN(), math.Inf(1)
	p := PaperDefaults()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name string
		fit  func() error
		want error
	}{
		{"nil rng", func() error { _, err := Fit(ctx, good, y, p, nil); return err }, learnerr.ErrInput},
		{"min bucket 0", func() error { q := p; q.MinBucket = 0; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"negative cp", func() error { q := p; q.CP = -1; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"NaN cp", func() error { q := p; q.CP = nan; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"mtry > d", func() error { q := p; q.Mtry = 3; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"unknown strategy", func() error { q := p; q.Strategy = 42; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"unknown gain", func() error { q := p; q.Gain = 7; _, err := Fit(ctx, good, y, q, newRNG(1)); return err }, learnerr.ErrSetting},
		{"nil X", func() error { _, err := Fit(ctx, nil, y, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"empty X", func() error { _, err := Fit(ctx, &mat.Dense{}, y, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"short y", func() error { _, err := Fit(ctx, good, y[:3], p, newRNG(1)); return err }, learnerr.ErrInput},
		{"NaN y", func() error { _, err := Fit(ctx, good, []float64{1, nan, 3, 4}, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"Inf y", func() error { _, err := Fit(ctx, good, []float64{1, inf, 3, 4}, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"Inf X", func() error { _, err := Fit(ctx, with(2, 1, -inf), y, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"NaN X, none", func() error {
			q := p
			q.Strategy = NoMissing
			_, err := Fit(ctx, with(0, 0, nan), y, q, newRNG(1))
			return err
		}, learnerr.ErrInput},
		{"rows out of range", func() error { _, err := FitSample(ctx, good, y, []int{0, 4}, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"no rows", func() error { _, err := FitSample(ctx, good, y, nil, p, newRNG(1)); return err }, learnerr.ErrInput},
		{"all rows all NA (surrogate)", func() error {
			X := mat.NewDense(2, 1, []float64{nan, nan})
			_, err := Fit(ctx, X, []float64{1, 2}, p, newRNG(1))
			return err
		}, learnerr.ErrInput},
		{"cancelled", func() error { _, err := Fit(cancelled, good, y, p, newRNG(1)); return err }, context.Canceled},
	}
	for _, c := range cases {
		if err := c.fit(); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

func TestPredictErrors(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	for _, st := range []Strategy{Surrogate, NoMissing} {
		p := PaperDefaults()
		p.Strategy = st
		tr, err := Fit(context.Background(), X, []float64{1, 2, 3, 4}, p, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Predict(context.Background(), mat.NewDense(1, 3, nil)); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%v: 3 columns: %v, want learnerr.ErrInput", st, err)
		}
		if _, err := tr.Predict(context.Background(), nil); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%v: nil X: %v, want learnerr.ErrInput", st, err)
		}
		if _, err := tr.Predict(context.Background(), mat.NewDense(1, 2, []float64{math.Inf(-1), 0})); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("%v: -Inf: %v, want learnerr.ErrInput", st, err)
		}
		_, err = tr.Predict(context.Background(), mat.NewDense(1, 2, []float64{math.NaN(), 0}))
		if st == NoMissing && !errors.Is(err, learnerr.ErrInput) || st != NoMissing && err != nil {
			t.Errorf("%v: NaN: %v", st, err)
		}
	}
}

// TestModelShape checks what package learn's adapter relies on: Fit
// rejects bad Params with learnerr.ErrSetting, RootSplit reports the
// root, and Predict honours a cancelled context.
func TestModelShape(t *testing.T) {
	X := mat.NewDense(6, 1, []float64{1, 2, 3, 4, 5, 6})
	y := []float64{0, 0, 0, 1, 1, 1}
	ctx := context.Background()
	bad := PaperDefaults()
	bad.MinBucket = 0
	if _, err := Fit(ctx, X, y, bad, newRNG(1)); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("Fit(MinBucket 0) error %v, want learnerr.ErrSetting", err)
	}
	p := PaperDefaults()
	p.MinBucket, p.MinSplit = 1, 2
	got, err := Fit(ctx, X, y, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if j, thr, ok := got.RootSplit(); !ok || j != 0 || thr != 3.5 {
		t.Errorf("RootSplit() = %d, %v, %v; want 0, 3.5, true", j, thr, ok)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := got.Predict(cancelled, X); !errors.Is(err, context.Canceled) {
		t.Errorf("Predict(cancelled) error %v, want context.Canceled", err)
	}
	leaf, _ := Fit(ctx, X, []float64{1, 1, 1, 1, 1, 1}, p, newRNG(1))
	if _, _, ok := leaf.RootSplit(); ok {
		t.Error("RootSplit() of a single leaf: ok = true")
	}
}

// TestSingleLeaf: too few rows (rpart returns a root-only tree, not an
// error), a constant target, constant or all-NA columns: one leaf
// predicting the mean of y.
func TestSingleLeaf(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		p    Params
	}{
		{"n < minsplit", mat.NewDense(5, 1, []float64{1, 2, 3, 4, 5}), []float64{1, 2, 3, 10, 20}, PaperDefaults()},
		{"constant y", mat.NewDense(6, 1, []float64{1, 2, 3, 4, 5, 6}), []float64{2, 2, 2, 2, 2, 2}, Params{MinBucket: 1}},
		{"constant column", mat.NewDense(6, 1, []float64{3, 3, 3, 3, 3, 3}), []float64{1, 2, 3, 4, 5, 6}, Params{MinBucket: 1}},
		{"all-NA column, MIA", mat.NewDense(6, 1, []float64{nan, nan, nan, nan, nan, nan}), []float64{1, 2, 3, 4, 5, 6}, Params{Strategy: MIA, MinBucket: 1}},
		{"single row", mat.NewDense(1, 2, []float64{1, 2}), []float64{7}, Params{MinBucket: 1}},
	}
	for _, c := range cases {
		tr, err := Fit(context.Background(), c.X, c.y, c.p, newRNG(2))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mean := 0.0
		for _, v := range c.y {
			mean += v / float64(len(c.y))
		}
		got, _ := tr.Predict(context.Background(), c.X)
		if tr.NumLeaves() != 1 || tr.Depth() != 0 || math.Abs(got[0]-mean) > 1e-12 {
			t.Errorf("%s: %d leaves, depth %d, prediction %v; want 1 leaf predicting %v", c.name, tr.NumLeaves(), tr.Depth(), got[0], mean)
		}
	}
}

// TestStepFunction: y = 5·1{x > 0.3} exactly; the split must be the
// midpoint between the two observed values around 0.3 (rpart's rule),
// and the leaves must predict 0 and 5 exactly.
func TestStepFunction(t *testing.T) {
	xs := []float64{0.05, 0.1, 0.2, 0.25, 0.4, 0.5, 0.7, 0.9, 0.15, 0.6}
	y := make([]float64, len(xs))
	for i, x := range xs {
		if x > 0.3 {
			y[i] = 5
		}
	}
	X := mat.NewDense(len(xs), 1, xs)
	for _, st := range []Strategy{Surrogate, MIA, Block, Prob, Majority, NoMissing} {
		tr, err := Fit(context.Background(), X, y, Params{Strategy: st, MinBucket: 1, MinSplit: 2}, newRNG(3))
		if err != nil {
			t.Fatal(err)
		}
		r := tr.Root()
		if r.Threshold != (0.25+0.4)/2 || tr.NumLeaves() != 2 {
			t.Errorf("%v: threshold %v with %d leaves, want 0.325 and 2", st, r.Threshold, tr.NumLeaves())
		}
		got, _ := tr.Predict(context.Background(), mat.NewDense(3, 1, []float64{0.3249, 0.325, 10}))
		if !slices.Equal(got, []float64{0, 5, 5}) {
			t.Errorf("%v: predictions %v, want [0 5 5] (x < threshold goes left)", st, got)
		}
	}
}
