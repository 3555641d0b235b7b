package forest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/tree"
)

// fitClass fits a probability forest or fails the test.
func fitClass(t *testing.T, X *mat.Dense, y []float64, k int, p Params, seed uint64) *ClassModel {
	t.Helper()
	m, err := FitClass(context.Background(), X, y, k, p, rand.New(rand.NewPCG(seed, 3)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// proba predicts or fails the test.
func proba(t *testing.T, m *ClassModel, X *mat.Dense) *mat.Dense {
	t.Helper()
	P, err := m.PredictProba(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	return P
}

// TestClassDefaults checks ranger's probability-forest defaults: 500
// trees, mtry max(1, ⌊√d⌋) (as for regression), min.node.size 10 when
// MinNodeSize is 0, an explicit MinNodeSize kept.
func TestClassDefaults(t *testing.T) {
	cases := []struct {
		d, minNode        int
		wantMtry, wantMin int
	}{
		{d: 9, minNode: 0, wantMtry: 3, wantMin: DefaultMinNodeSizeProbability},
		{d: 16, minNode: 0, wantMtry: 4, wantMin: 10},
		{d: 15, minNode: 5, wantMtry: 3, wantMin: 5},
		{d: 2, minNode: 1, wantMtry: 1, wantMin: 1},
	}
	for _, tc := range cases {
		r := rand.New(rand.NewPCG(uint64(tc.d), 1))
		X := mat.NewDense(40, tc.d, nil)
		y := make([]float64, 40)
		for i := range 40 {
			for j := range tc.d {
				X.Set(i, j, r.NormFloat64())
			}
			y[i] = float64(i % 2)
		}
		p := RangerClassDefaults()
		p.NumTrees, p.MinNodeSize = 3, tc.minNode
		m := fitClass(t, X, y, 2, p, 1)
		if m.Mtry() != tc.wantMtry || m.MinNodeSize() != tc.wantMin || m.NumTrees() != 3 || m.NumClasses() != 2 ||
			m.NumFeatures() != tc.d || m.Strategy() != tree.NoMissing {
			t.Errorf("d %d, MinNodeSize %d: mtry %d, min node %d, %d trees, %d classes, %d features, %v",
				tc.d, tc.minNode, m.Mtry(), m.MinNodeSize(), m.NumTrees(), m.NumClasses(), m.NumFeatures(), m.Strategy())
		}
	}
	if p := RangerClassDefaults(); p.NumTrees != 500 || !p.Replace || p.SampleFraction != 1 || p.Mtry != 0 || p.MinNodeSize != 0 {
		t.Errorf("RangerClassDefaults() = %+v", p)
	}
}

// TestFitClassErrors checks the errors of FitClass and PredictProba.
func TestFitClassErrors(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	y := []float64{0, 1, 0, 1}
	withNaN := mat.NewDense(4, 2, []float64{1, math.NaN(), 3, 4, 5, 6, 7, 8})
	withInf := mat.NewDense(4, 2, []float64{1, math.Inf(1), 3, 4, 5, 6, 7, 8})
	ok := RangerClassDefaults()
	ok.NumTrees = 2
	bad := ok
	bad.NumTrees = 0
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		k    int
		p    Params
		rng  *rand.Rand
		want error
	}{
		{"nil rng", X, y, 2, ok, nil, learnerr.ErrInput},
		{"one class", X, y, 1, ok, rng(), learnerr.ErrSetting},
		{"code out of range", X, []float64{0, 1, 2, 1}, 2, ok, rng(), learnerr.ErrInput},
		{"negative code", X, []float64{0, -1, 0, 1}, 2, ok, rng(), learnerr.ErrInput},
		{"fractional code", X, []float64{0, 0.5, 0, 1}, 2, ok, rng(), learnerr.ErrInput},
		{"NaN code", X, []float64{0, math.NaN(), 0, 1}, 2, ok, rng(), learnerr.ErrInput},
		{"length mismatch", X, y[:3], 2, ok, rng(), learnerr.ErrInput},
		{"NaN without MIA", withNaN, y, 2, ok, rng(), learnerr.ErrInput},
		{"Inf", withInf, y, 2, ok, rng(), learnerr.ErrInput},
		{"bad params", X, y, 2, bad, rng(), learnerr.ErrSetting},
	}
	for _, tc := range cases {
		_, err := FitClass(context.Background(), tc.X, tc.y, tc.k, tc.p, tc.rng)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	m := fitClass(t, X, y, 2, ok, 1)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	predCases := []struct {
		name string
		ctx  context.Context
		X    *mat.Dense
		want error
	}{
		{"columns", context.Background(), mat.NewDense(2, 3, nil), learnerr.ErrInput},
		{"NaN without MIA", context.Background(), withNaN, learnerr.ErrInput},
		{"Inf", context.Background(), withInf, learnerr.ErrInput},
		{"empty", context.Background(), &mat.Dense{}, learnerr.ErrInput},
		{"cancelled", cancelled, X, context.Canceled},
	}
	for _, tc := range predCases {
		if _, err := m.PredictProba(tc.ctx, tc.X); !errors.Is(err, tc.want) {
			t.Errorf("predict %s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := FitClass(cancelled, X, y, 2, ok, rng()); !errors.Is(err, context.Canceled) {
		t.Errorf("fit with a cancelled context: %v", err)
	}
}

// TestClassProbabilities checks PredictProba's shape and range (rows of
// probabilities summing to 1), that the result does not depend on the
// number of threads, and that under MIA complete data grow the same
// forest as without it.
func TestClassProbabilities(t *testing.T) {
	for _, k := range []int{2, 3} {
		tr, te := classData(9, k, 300, 500)
		p := RangerClassDefaults()
		p.NumTrees = 40
		one := proba(t, fitClass(t, tr.x, tr.y, k, p, 4), te.x)
		p.Threads = 3
		three := proba(t, fitClass(t, tr.x, tr.y, k, p, 4), te.x)
		p.Strategy = tree.MIA
		mia := proba(t, fitClass(t, tr.x, tr.y, k, p, 4), te.x)
		if r, c := one.Dims(); r != 500 || c != k {
			t.Fatalf("k %d: %d × %d probabilities", k, r, c)
		}
		for i := range 500 {
			sum := 0.0
			for _, v := range one.RawRowView(i) {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("k %d row %d: probability %v", k, i, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("k %d row %d: probabilities sum to %v", k, i, sum)
			}
		}
		if i, j, ok := sameBits(one, three); !ok {
			t.Errorf("k %d: 1 and 3 threads differ at row %d class %d", k, i, j)
		}
		if i, j, ok := sameBits(one, mia); !ok {
			t.Errorf("k %d: MIA on complete data differs at row %d class %d", k, i, j)
		}
	}
}

// TestClassSizeBytes checks that a probability forest accounts for its
// leaf fractions: larger than its nodes alone, and growing with k.
func TestClassSizeBytes(t *testing.T) {
	tr, _ := classData(2, 3, 400, 1)
	p := RangerClassDefaults()
	p.NumTrees = 50
	m := fitClass(t, tr.x, tr.y, 3, p, 1)
	nodes := m.NumNodes() * 16
	if m.SizeBytes() <= nodes {
		t.Errorf("SizeBytes %d, nodes alone %d bytes", m.SizeBytes(), nodes)
	}
	m5 := fitClass(t, tr.x, tr.y, 50, p, 1) // same trees, 50 fractions per leaf
	if m5.NumNodes() != m.NumNodes() || m5.SizeBytes() <= m.SizeBytes() {
		t.Errorf("k 50: %d nodes, %d bytes; k 3: %d nodes, %d bytes", m5.NumNodes(), m5.SizeBytes(), m.NumNodes(), m.SizeBytes())
	}
}
