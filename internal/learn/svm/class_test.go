package svm_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/svm"
)

// meanAbsDiff returns the mean |a − b| over two matrices of one shape.
func meanAbsDiff(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	s := 0.0
	for i := range r {
		for j := range c {
			s += math.Abs(a.At(i, j) - b.At(i, j))
		}
	}
	return s / float64(r*c)
}

// spread returns the mean of meanAbsDiff over the pairs (x, y), x from
// xs and y from ys, x ≠ y when xs and ys are the same set.
func spread(xs, ys []*mat.Dense, same bool) float64 {
	s, n := 0.0, 0
	for i, x := range xs {
		for j, y := range ys {
			if same && j <= i {
				continue
			}
			s += meanAbsDiff(x, y)
			n++
		}
	}
	return s / float64(n)
}

// TestClassProbaStatistical compares the probabilities of fits seeded
// from rng with e1071's over six seeds each: the shuffle is the only
// difference, so the mean absolute difference between a misslab fit and
// an e1071 fit must be what e1071 shows against itself across seeds. It
// must stay within 1.25 times the larger of e1071's and misslab's own
// spreads (each an average over 15 pairs of fits, the cross one over 36).
func TestClassProbaStatistical(t *testing.T) {
	ctx := context.Background()
	for _, name := range classCases {
		if testing.Short() && name == "multi4_p5_n1000" {
			continue
		}
		g := loadClassGolden(t, name)
		var ours, theirs []*mat.Dense
		for s := range uint64(len(g.seeds)) {
			m, err := g.clf.FitClass(ctx, g.X, g.y, g.k, rand.New(rand.NewPCG(s, 2025)))
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.PredictProba(ctx, g.Q)
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs = append(ours, p), append(theirs, g.prob[g.seeds[s]])
		}
		within, self, cross := spread(theirs, theirs, true), spread(ours, ours, true), spread(ours, theirs, false)
		t.Logf("%s: mean |Δp| e1071 vs e1071 %.2e, misslab vs misslab %.2e, misslab vs e1071 %.2e", name, within, self, cross)
		if cross > 1.25*max(within, self) {
			t.Errorf("%s: misslab differs from e1071 by %.3g on average, more than e1071 from itself (%.3g) or misslab (%.3g)",
				name, cross, within, self)
		}
	}
}

// TestClassSeeding pins down how FitClass consumes rng: exactly Σ l
// values of rng.Float64() (l the rows of each pair), used as the
// shuffles' draws in order, and nothing else.
func TestClassSeeding(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"bin_p3", "multi3_p4", "absent_p3"} {
		g := loadClassGolden(t, name)
		rng := rand.New(rand.NewPCG(7, 8))
		m, err := g.clf.FitClass(ctx, g.X, g.y, g.k, rng)
		if err != nil {
			t.Fatal(err)
		}
		ref := rand.New(rand.NewPCG(7, 8))
		draws := make([]float64, len(g.draws)) // as many as e1071 drew
		for i := range draws {
			draws[i] = ref.Float64()
		}
		if next, want := rng.Float64(), ref.Float64(); next != want {
			t.Errorf("%s: FitClass did not consume exactly %d values of rng", name, len(draws))
		}
		m2, used, ok, err := svm.FitClassDraws(g.clf, ctx, g.X, g.y, g.k, draws)
		if err != nil || !ok || used != len(draws) {
			t.Fatalf("%s: %v, used %d of %d", name, err, used, len(draws))
		}
		p1, _ := m.PredictProba(ctx, g.Q)
		p2, _ := m2.PredictProba(ctx, g.Q)
		if !mat.Equal(p1, p2) {
			t.Errorf("%s: FitClass(rng) differs from a fit drawing rng.Float64() in order", name)
		}
	}
}

// classData draws n rows of p standard normal columns and k classes cut
// from x1 + x2² + noise at equal shares.
func classData(seed uint64, n, p, k int) (*mat.Dense, []float64) {
	r := rand.New(rand.NewPCG(seed, 17))
	X := mat.NewDense(n, p, nil)
	z := make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, r.NormFloat64())
		}
		z[i] = X.At(i, 0) + X.At(i, 1%p)*X.At(i, 1%p) + 0.5*r.NormFloat64()
	}
	sorted := slices.Sorted(slices.Values(z))
	y := make([]float64, n)
	for i, v := range z {
		for c := 1; c < k; c++ {
			if v >= sorted[c*n/k] {
				y[i] = float64(c)
			}
		}
	}
	return X, y
}

func fitClass(t *testing.T, c svm.Classifier, X *mat.Dense, y []float64, k int) *svm.ClassModel {
	t.Helper()
	m, err := c.FitClass(context.Background(), X, y, k, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestClassProbaRows: every row of PredictProba is a distribution over
// the k codes, absent codes at 0, and its largest entry agrees with the
// decision values' sign for two classes.
func TestClassProbaRows(t *testing.T) {
	ctx := context.Background()
	for _, k := range []int{2, 3, 5} {
		X, y := classData(uint64(k), 200, 3, k)
		Q, _ := classData(100+uint64(k), 50, 3, k)
		m := fitClass(t, svm.Classifier{}, X, y, k+1) // code k never occurs
		p, err := m.PredictProba(ctx, Q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			row := p.RawRowView(i)
			sum := 0.0
			for _, v := range row {
				sum += v
			}
			if math.Abs(sum-1) > 1e-12 || row[k] != 0 || slices.Min(row) < 0 {
				t.Fatalf("k = %d, row %d: %v", k, i, row)
			}
		}
	}
}

// TestClassDegenerate covers training sets e1071 cannot fit or predict
// from.
func TestClassDegenerate(t *testing.T) {
	ctx := context.Background()
	X, _ := classData(3, 30, 2, 2)
	t.Run("one class", func(t *testing.T) {
		y := slices.Repeat([]float64{2}, 30)
		rng := rand.New(rand.NewPCG(1, 1))
		m, err := svm.Classifier{}.FitClass(ctx, X, y, 3, rng)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.PredictProba(ctx, X)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.RawRowView(7), []float64{0, 0, 1}) || m.NumSV() != 0 {
			t.Errorf("row 7: %v with %d support vectors, want [0 0 1] and none", p.RawRowView(7), m.NumSV())
		}
		if _, err := m.Decision(ctx, X); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("Decision of a one-class model: %v", err)
		}
		ref := rand.New(rand.NewPCG(1, 1))
		if rng.Float64() != ref.Float64() {
			t.Error("a one-class fit consumed rng")
		}
	})
	t.Run("two rows", func(t *testing.T) {
		Xs := mat.NewDense(2, 2, []float64{0, 1, 1, 0})
		m := fitClass(t, svm.Classifier{}, Xs, []float64{1, 0}, 2)
		p, err := m.PredictProba(ctx, Xs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if s := p.At(i, 0) + p.At(i, 1); math.Abs(s-1) > 1e-15 {
				t.Errorf("row %d sums to %v", i, s)
			}
		}
	})
}

func TestClassErrors(t *testing.T) {
	ctx := context.Background()
	X, y := classData(6, 20, 2, 2)
	withNaN := mat.DenseCopyOf(X)
	withNaN.Set(3, 1, math.NaN())
	withInf := mat.DenseCopyOf(X)
	withInf.Set(0, 0, math.Inf(1))
	code := func(i int, v float64) []float64 { c := slices.Clone(y); c[i] = v; return c }
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	cases := []struct {
		name string
		c    svm.Classifier
		X    *mat.Dense
		y    []float64
		k    int
		rng  *rand.Rand
		want error
	}{
		{"NaN in X", svm.Classifier{}, withNaN, y, 2, rng(), learnerr.ErrInput},
		{"Inf in X", svm.Classifier{}, withInf, y, 2, rng(), learnerr.ErrInput},
		{"code k", svm.Classifier{}, X, code(4, 2), 2, rng(), learnerr.ErrInput},
		{"fractional code", svm.Classifier{}, X, code(4, 0.5), 2, rng(), learnerr.ErrInput},
		{"negative code", svm.Classifier{}, X, code(4, -1), 2, rng(), learnerr.ErrInput},
		{"NaN code", svm.Classifier{}, X, code(4, math.NaN()), 2, rng(), learnerr.ErrInput},
		{"short y", svm.Classifier{}, X, y[:19], 2, rng(), learnerr.ErrInput},
		{"nil X", svm.Classifier{}, nil, y, 2, rng(), learnerr.ErrInput},
		{"nil rng", svm.Classifier{}, X, y, 2, nil, learnerr.ErrInput},
		{"k = 1", svm.Classifier{}, X, slices.Repeat([]float64{0}, 20), 1, rng(), learnerr.ErrSetting},
		{"negative cost", svm.Classifier{Cost: -1}, X, y, 2, rng(), learnerr.ErrSetting},
		{"negative gamma", svm.Classifier{Gamma: -1}, X, y, 2, rng(), learnerr.ErrSetting},
		{"NaN tolerance", svm.Classifier{Tolerance: math.NaN()}, X, y, 2, rng(), learnerr.ErrSetting},
		{"negative cache", svm.Classifier{CacheMB: -1}, X, y, 2, rng(), learnerr.ErrSetting},
	}
	for _, c := range cases {
		if _, err := c.c.FitClass(ctx, c.X, c.y, c.k, c.rng); !errors.Is(err, c.want) {
			t.Errorf("fit %s: got %v, want %v", c.name, err, c.want)
		}
	}
	m := fitClass(t, svm.Classifier{}, X, y, 2)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	predCases := []struct {
		name string
		ctx  context.Context
		X    *mat.Dense
		want error
	}{
		{"three columns", ctx, mat.NewDense(1, 3, nil), learnerr.ErrInput},
		{"NaN", ctx, mat.NewDense(1, 2, []float64{math.NaN(), 0}), learnerr.ErrInput},
		{"nil", ctx, nil, learnerr.ErrInput},
		{"cancelled", cancelled, X, context.Canceled},
	}
	for _, c := range predCases {
		if _, err := m.PredictProba(c.ctx, c.X); !errors.Is(err, c.want) {
			t.Errorf("PredictProba %s: got %v, want %v", c.name, err, c.want)
		}
		if _, err := m.Decision(c.ctx, c.X); !errors.Is(err, c.want) {
			t.Errorf("Decision %s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := (svm.Classifier{}).FitClass(cancelled, X, y, 2, rng()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
}

func TestClassifierSettings(t *testing.T) {
	def := svm.Classifier{Cost: svm.DefaultCost, Tolerance: svm.DefaultTolerance, CacheMB: svm.DefaultCacheMB}
	cases := []struct {
		s    map[string]float64
		want svm.Classifier
		err  error
	}{
		{nil, def, nil},
		{map[string]float64{"cost": 4, "gamma": 0.2, "tolerance": 1e-4, "cachesize": 100, "epsilon": 0.3},
			svm.Classifier{Cost: 4, Gamma: 0.2, Tolerance: 1e-4, CacheMB: 100}, nil},
		{map[string]float64{"cost": 0}, svm.Classifier{}, learnerr.ErrSetting},
		{map[string]float64{"tolerance": 0}, svm.Classifier{}, learnerr.ErrSetting},
		{map[string]float64{"cachesize": 0}, svm.Classifier{}, learnerr.ErrSetting},
		{map[string]float64{"gamma": -1}, svm.Classifier{}, learnerr.ErrSetting},
		{map[string]float64{"cost": math.Inf(1)}, svm.Classifier{}, learnerr.ErrSetting},
		{map[string]float64{"nu": 0.5}, svm.Classifier{}, learnerr.ErrSetting},
	}
	for _, c := range cases {
		got, err := svm.ClassifierFromSettings(c.s)
		if !errors.Is(err, c.err) || (err == nil && got != c.want) {
			t.Errorf("%v: %+v, %v; want %+v, %v", c.s, got, err, c.want, c.err)
		}
	}
}

// TestClassifierZeroValue: the zero Classifier is e1071's defaults.
func TestClassifierZeroValue(t *testing.T) {
	X, y := classData(9, 80, 4, 3)
	a := fitClass(t, svm.Classifier{}, X, y, 3)
	b := fitClass(t, svm.Classifier{Cost: 1, Gamma: 0.25, Tolerance: 0.001, CacheMB: 40}, X, y, 3)
	if a.Gamma() != 0.25 || !slices.Equal(a.Rho(), b.Rho()) || !slices.Equal(a.ProbA(), b.ProbA()) {
		t.Errorf("zero value: gamma %v, rho %v, probA %v; explicit defaults: rho %v, probA %v",
			a.Gamma(), a.Rho(), a.ProbA(), b.Rho(), b.ProbA())
	}
}

// TestClassFitCopies: the model does not alias the training data and
// prediction leaves its input alone.
func TestClassFitCopies(t *testing.T) {
	ctx := context.Background()
	X, y := classData(8, 60, 2, 3)
	Q, _ := classData(9, 10, 2, 3)
	m := fitClass(t, svm.Classifier{}, X, y, 3)
	before, _ := m.PredictProba(ctx, Q)
	Qcopy := mat.DenseCopyOf(Q)
	X.Scale(3, X)
	clear(y)
	after, _ := m.PredictProba(ctx, Q)
	if !mat.Equal(before, after) || !mat.Equal(Q, Qcopy) {
		t.Error("predictions changed with the training data, or PredictProba modified its input")
	}
}
