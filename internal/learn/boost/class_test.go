package boost

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// binaryQuadratic draws the paper's Model 1 covariates (see quadratic)
// with labels Y ~ Bernoulli(σ(2(X1² + X2² + X3² − 6))).
func binaryQuadratic(rng *rand.Rand, n, d int, rho, rate float64) (*mat.Dense, []float64) {
	X, f := quadratic(rng, n, d, rho, rate)
	y := make([]float64, n)
	for i, v := range f {
		if rng.Float64() < 1/(1+math.Exp(-2*(v-6))) {
			y[i] = 1
		}
	}
	return X, y
}

// multiQuadratic is binaryQuadratic with k classes: the class of a row is
// its regression value's bin among k−1 cut points spread around 6.
func multiQuadratic(rng *rand.Rand, n, d, k int, rate float64) (*mat.Dense, []float64) {
	X, f := quadratic(rng, n, d, 0.5, rate)
	y := make([]float64, n)
	for i, v := range f {
		v += rng.NormFloat64()
		for c := 1; c < k; c++ {
			if v > 6+3*float64(2*c-k)/float64(k) {
				y[i] = float64(c)
			}
		}
	}
	return X, y
}

// TestFitClassErrors checks that bad data wrap learnerr.ErrInput and bad
// settings learnerr.ErrSetting.
func TestFitClassErrors(t *testing.T) {
	X, y := binaryQuadratic(newRNG(1), 40, 3, 0.5, 0.2)
	with := func(i int, v float64) []float64 {
		c := append([]float64(nil), y...)
		c[i] = v
		return c
	}
	inf := mat.DenseCopyOf(X)
	inf.Set(3, 1, math.Inf(1))
	def := DefaultParams()
	cases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		k    int
		p    func(*Params)
		rng  *rand.Rand
		want error
	}{
		{"one class", X, y, 1, nil, newRNG(1), learnerr.ErrInput},
		{"label beyond k", X, with(0, 2), 2, nil, newRNG(1), learnerr.ErrInput},
		{"fractional label", X, with(0, 0.5), 3, nil, newRNG(1), learnerr.ErrInput},
		{"negative label", X, with(5, -1), 3, nil, newRNG(1), learnerr.ErrInput},
		{"NaN label", X, with(5, math.NaN()), 2, nil, newRNG(1), learnerr.ErrInput},
		{"short y", X, y[:10], 2, nil, newRNG(1), learnerr.ErrInput},
		{"infinite feature", inf, y, 2, nil, newRNG(1), learnerr.ErrInput},
		{"nil rng", X, y, 2, nil, nil, learnerr.ErrInput},
		{"base score 0", X, y, 2, func(p *Params) { p.BaseScore = 0 }, newRNG(1), learnerr.ErrSetting},
		{"base score 1", X, y, 2, func(p *Params) { p.BaseScore = 1 }, newRNG(1), learnerr.ErrSetting},
		{"negative eta", X, y, 3, func(p *Params) { p.Eta = -1 }, newRNG(1), learnerr.ErrSetting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := def
			p.Rounds = 2
			if c.p != nil {
				c.p(&p)
			}
			_, err := FitClass(context.Background(), c.X, c.y, c.k, p, c.rng)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// TestPredictProbaErrors checks PredictProba's input errors and
// cancellation.
func TestPredictProbaErrors(t *testing.T) {
	X, y := binaryQuadratic(newRNG(2), 60, 3, 0.5, 0.2)
	p := DefaultParams()
	p.Rounds = 3
	m, err := FitClass(context.Background(), X, y, 2, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	inf := mat.DenseCopyOf(X)
	inf.Set(0, 0, math.Inf(-1))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		X    *mat.Dense
		want error
	}{
		{"columns", context.Background(), mat.NewDense(2, 4, nil), learnerr.ErrInput},
		{"infinite", context.Background(), inf, learnerr.ErrInput},
		{"empty", context.Background(), &mat.Dense{}, learnerr.ErrInput},
		{"cancelled", cancelled, X, context.Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := m.PredictProba(c.ctx, c.X); !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// TestProbaRows checks, for two to five classes and zero or more rounds,
// the shape of PredictProba's output: k columns, probabilities in [0, 1]
// summing to 1 within float32 rounding, 1 − p exactly the float32
// complement for two classes, uniform probabilities without trees, and k
// trees per round beyond two classes.
func TestProbaRows(t *testing.T) {
	for _, c := range []struct{ k, rounds int }{{2, 0}, {2, 15}, {3, 0}, {3, 10}, {5, 8}} {
		X, y := multiQuadratic(newRNG(uint64(3+c.k)), 300, 5, c.k, 0.3)
		p := DefaultParams()
		p.Rounds = c.rounds
		m, err := FitClass(context.Background(), X, y, c.k, p, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		if m.Classes() != c.k || m.Trees() != c.rounds*len(m.groups) || (c.k > 2) != (len(m.groups) == c.k) {
			t.Fatalf("k=%d: %d classes, %d trees in %d groups after %d rounds", c.k, m.Classes(), m.Trees(), len(m.groups), c.rounds)
		}
		P, err := m.PredictProba(context.Background(), X)
		if err != nil {
			t.Fatal(err)
		}
		if r, k := P.Dims(); r != 300 || k != c.k {
			t.Fatalf("k=%d: %d × %d probabilities", c.k, r, k)
		}
		for i := range 300 {
			row := P.RawRowView(i)
			sum := 0.0
			for _, v := range row {
				sum += v
				if !(v >= 0 && v <= 1) || (c.rounds == 0 && v != float64(float32(1)/float32(c.k))) {
					t.Fatalf("k=%d rounds=%d row %d: probabilities %v", c.k, c.rounds, i, row)
				}
			}
			if math.Abs(sum-1) > 1e-6 || (c.k == 2 && row[0] != float64(1-float32(row[1]))) {
				t.Fatalf("k=%d row %d: probabilities %v sum to %v", c.k, i, row, sum)
			}
		}
	}
}

// TestUnitHessians checks the weighted growth against the squared-error
// one: with every hessian 1 both must grow identical trees (hessian sums
// are then exact integers in any order), over settings covering L1,
// min_child_weight, λ = 0, pruning and depth.
func TestUnitHessians(t *testing.T) {
	cases := []func(*Params){
		func(*Params) {},
		func(p *Params) { p.Alpha, p.Lambda, p.MinChildWeight, p.Gamma = 0.5, 0, 3, 0.2 },
		func(p *Params) { p.MaxDepth, p.MinChildWeight, p.Lambda = 9, 6.5, 2 },
		func(p *Params) { p.MaxDepth, p.MinChildWeight, p.Lambda = 1, 0, 0 },
	}
	for k, set := range cases {
		X, y := quadratic(newRNG(uint64(20+k)), 400, 6, 0.5, 0.3)
		X.Apply(func(_, _ int, v float64) float64 { return math.Round(v*4) / 4 }, X)
		p := DefaultParams()
		p.Rounds = 5
		set(&p)
		unit, weighted := growPaths(t, X, y, p)
		for r := range unit {
			if err := equalTrees(&unit[r], &weighted[r]); err != nil {
				t.Fatalf("case %d round %d: %v", k, r, err)
			}
		}
	}
}

// growPaths fits p on the squared-error gradients with the unit-hessian
// path and with the weighted path given hessians 1.
func growPaths(t *testing.T, X *mat.Dense, y []float64, p Params) (unit, weighted []tree) {
	t.Helper()
	for _, w := range []bool{false, true} {
		ds, err := newDataset(X, y)
		if err != nil {
			t.Fatal(err)
		}
		g := newGrower(ds, p)
		if w {
			g.weigh()
			for i := range g.hess {
				g.hess[i] = 1
			}
		}
		pred := make([]float32, ds.n)
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
		if w {
			weighted = trees
		} else {
			unit = trees
		}
	}
	return unit, weighted
}

// TestClassConcurrentPredict runs PredictProba from several goroutines
// (for -race) and checks that they agree bit for bit.
func TestClassConcurrentPredict(t *testing.T) {
	X, y := multiQuadratic(newRNG(8), 200, 4, 3, 0.2)
	p := DefaultParams()
	p.Rounds = 5
	m, err := FitClass(context.Background(), X, y, 3, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.PredictProba(context.Background(), X)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := m.PredictProba(context.Background(), X)
			if err != nil {
				t.Error(err)
				return
			}
			if bad, _ := diffBits(got, want); bad > 0 {
				t.Errorf("%d probabilities differ between goroutines", bad)
			}
		})
	}
	wg.Wait()
}

// TestFitClassCancelled checks that a cancelled context stops the fit.
func TestFitClassCancelled(t *testing.T) {
	X, y := binaryQuadratic(newRNG(9), 100, 3, 0.5, 0.2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitClass(ctx, X, y, 2, DefaultParams(), newRNG(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
