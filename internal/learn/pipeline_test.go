package learn

import (
	"context"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/learn/linear"
)

var (
	ctx = context.Background()
	nan = math.NaN()
)

func newRNG() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func dense(rows ...[]float64) *mat.Dense {
	var data []float64
	for _, r := range rows {
		data = append(data, r...)
	}
	return mat.NewDense(len(rows), len(rows[0]), data)
}

// sameNaN reports element-wise equality, NaN equal to NaN.
func sameNaN(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			x, y := a.At(i, j), b.At(i, j)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				return false
			}
		}
	}
	return true
}

// spy is a learner that records every matrix it is fitted on or asked to
// predict, and predicts the row sums.
type spy struct {
	strategy    string
	fitX, predX []*mat.Dense
	fitY        [][]float64
}

func (s *spy) Fit(_ context.Context, X *mat.Dense, y []float64, _ *rand.Rand) (Model, error) {
	s.fitX = append(s.fitX, mat.DenseCopyOf(X))
	s.fitY = append(s.fitY, slices.Clone(y))
	return spyModel{s}, nil
}

// spyModel is the spy's fitted model.
type spyModel struct{ s *spy }

func (m spyModel) Predict(_ context.Context, X *mat.Dense) ([]float64, error) {
	m.s.predX = append(m.s.predX, mat.DenseCopyOf(X))
	n, _ := X.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = mat.Sum(X.RowView(i))
	}
	return out, nil
}

// withSpy registers a spy under learner and returns it.
func withSpy(t *testing.T, learner string) *spy {
	s := &spy{}
	withFamily(t, learner, Family{New: func(strategy string, _ Settings, _ Env) (Learner, error) {
		s.strategy = strategy
		return s, nil
	}})
	return s
}

func fitPredict(t *testing.T, name string, s Settings, train *mat.Dense, y []float64, test *mat.Dense) (*Fitted, []float64) {
	t.Helper()
	p, err := New(name, s, Env{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Fit(ctx, train, y, newRNG())
	if err != nil {
		t.Fatal(err)
	}
	pred, err := f.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	return f, pred
}

// Training: column 0 observed {1, 3, 8} (mean 4), column 1 complete
// (mean 9), column 2 observed {6} only.
var (
	trainX = dense(
		[]float64{1, 2, nan},
		[]float64{nan, 4, nan},
		[]float64{3, 10, 6},
		[]float64{8, 20, nan},
	)
	trainY = []float64{1, 2, 3, 4}
	// Test values far from the training ones: any leak of test statistics
	// would change the imputed values.
	testX = dense(
		[]float64{nan, 1000, 500},
		[]float64{-700, nan, nan},
	)
)

// TestProperWay: imputation parameters and mask columns come from the
// training covariates only; the test set is imputed with them.
func TestProperWay(t *testing.T) {
	cases := []struct {
		name      string
		wantTrain *mat.Dense
		wantTest  *mat.Dense
	}{
		{"knn/mean", dense(
			[]float64{1, 2, 6}, []float64{4, 4, 6}, []float64{3, 10, 6}, []float64{8, 20, 6}),
			dense([]float64{4, 1000, 500}, []float64{-700, 9, 6})},
		// Mask: columns 0 and 2 were incomplete in training; the test NA in
		// column 1 is imputed but gets no indicator.
		{"knn/mean+mask", dense(
			[]float64{1, 2, 6, 0, 1}, []float64{4, 4, 6, 1, 1}, []float64{3, 10, 6, 0, 0}, []float64{8, 20, 6, 0, 1}),
			dense([]float64{4, 1000, 500, 1, 0}, []float64{-700, 9, 6, 0, 1})},
		// Native strategy: NaN reaches the learner, mask appended.
		{"forest/mia+mask", dense(
			[]float64{1, 2, nan, 0, 1}, []float64{nan, 4, nan, 1, 1}, []float64{3, 10, 6, 0, 0}, []float64{8, 20, nan, 0, 1}),
			dense([]float64{nan, 1000, 500, 1, 0}, []float64{-700, nan, nan, 0, 1})},
		// MIA as ±∞ duplication: low copies, then high copies of columns 0, 2.
		{"forest/mia-inf", dense(
			[]float64{1, 2, lo, 1, hi}, []float64{lo, 4, lo, hi, hi}, []float64{3, 10, 6, 3, 6}, []float64{8, 20, lo, 8, hi}),
			dense([]float64{lo, 1000, 500, hi, 500}, []float64{-700, lo, lo, -700, hi})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := withSpy(t, mustSpec(t, c.name).Learner)
			f, pred := fitPredict(t, c.name, nil, trainX, trainY, testX)
			if !sameNaN(s.fitX[0], c.wantTrain) {
				t.Errorf("learner trained on\n%v\nwant\n%v", mat.Formatted(s.fitX[0]), mat.Formatted(c.wantTrain))
			}
			if !sameNaN(s.predX[0], c.wantTest) {
				t.Errorf("learner predicted on\n%v\nwant\n%v", mat.Formatted(s.predX[0]), mat.Formatted(c.wantTest))
			}
			if _, w := c.wantTrain.Dims(); f.Features() != w {
				t.Errorf("Features() = %d, want %d", f.Features(), w)
			}
			if len(pred) != 2 || s.strategy != mustSpec(t, c.name).Strategy {
				t.Errorf("pred %v, factory strategy %q", pred, s.strategy)
			}
		})
	}
}

const lo, hi = -impute.OORFloor, impute.OORFloor

// TestOORConvention: without oor_k the oor strategy fills the paper's
// constant and its resolved settings are those of before the setting
// existed; with oor_k = k it fills max + k·(max − min) per training
// column (a constant column's range counting as max(1, |max|)).
func TestOORConvention(t *testing.T) {
	cases := []struct {
		s        Settings
		fill     []float64 // columns 0 {1, 3, 8}, 1 {2, 4, 10, 20}, 2 {6}
		resolved Settings
	}{
		{nil, []float64{hi, hi, hi}, Settings{}}, // the spy family has no keys
		{Settings{"oor_k": 0.5}, []float64{8 + 0.5*7, 20 + 0.5*18, 6 + 0.5*6}, Settings{"oor_k": 0.5}},
		{Settings{"oor_k": 0}, []float64{8, 20, 6}, Settings{"oor_k": 0}},
	}
	for _, c := range cases {
		sp := withSpy(t, KNN)
		p, err := New("knn/oor", c.s, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(p.Settings(), c.resolved) {
			t.Errorf("%v: resolved %v, want %v", c.s, p.Settings(), c.resolved)
		}
		f, err := p.Fit(ctx, trainX, trainY, newRNG())
		if err != nil {
			t.Fatal(err)
		}
		want := dense([]float64{1, 2, c.fill[2]}, []float64{c.fill[0], 4, c.fill[2]},
			[]float64{3, 10, 6}, []float64{8, 20, c.fill[2]})
		if !sameNaN(sp.fitX[0], want) || !slices.Equal(f.Imputer().(*impute.Fill).Values, c.fill) {
			t.Errorf("%v: learner trained on\n%v\nwant\n%v", c.s, mat.Formatted(sp.fitX[0]), mat.Formatted(want))
		}
	}
}

// TestNoLeak: the test-time transform of a row depends on neither the
// other test rows nor the targets, for the Gaussian imputer too.
func TestNoLeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	train := mat.NewDense(200, 4, nil)
	for i := range 200 {
		z := rng.NormFloat64()
		for j := range 4 {
			v := z + rng.NormFloat64()
			if j < 2 && rng.Float64() < 0.3 {
				v = nan
			}
			train.Set(i, j, v)
		}
	}
	y := make([]float64, 200)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	yPerm := slices.Clone(y)
	rng.Shuffle(len(yPerm), func(i, j int) { yPerm[i], yPerm[j] = yPerm[j], yPerm[i] })
	test := dense([]float64{nan, 5, 5, 5}, []float64{nan, nan, -50, 80})
	for _, name := range []string{"knn/gaussian+mask", "knn/median", "knn/oor+mask"} {
		s := withSpy(t, KNN)
		fitPredict(t, name, nil, train, y, test)
		fitPredict(t, name, nil, train, yPerm, test.Slice(1, 2, 0, 4).(*mat.Dense))
		if !sameNaN(s.fitX[0], s.fitX[1]) {
			t.Errorf("%s: the imputed training set depends on y", name)
		}
		if !sameNaN(s.predX[0].Slice(1, 2, 0, s.predX[0].RawMatrix().Cols).(*mat.Dense), s.predX[1]) {
			t.Errorf("%s: a test row's imputation depends on the other test rows", name)
		}
	}
}

// TestLinearGaussianBayes: for Y = Xβ + ε with Gaussian X and MCAR, the
// Bayes predictor is linear in (x_o, E[x_m | x_o]), so linear/gaussian
// reaches the Bayes risk σ² + β_m² Var(x_m | x_o) while linear/mean does
// not (the paper's Section 4.1 and Theorem 2 context).
func TestLinearGaussianBayes(t *testing.T) {
	const n, rho, p, sigma = 4000, 0.8, 0.4, 0.1
	beta := []float64{2, 1, -1}
	draw := func(rng *rand.Rand) (*mat.Dense, []float64) {
		X := mat.NewDense(n, 3, nil)
		y := make([]float64, n)
		for i := range n {
			z := rng.NormFloat64()
			for j := range 3 {
				x := math.Sqrt(rho)*z + math.Sqrt(1-rho)*rng.NormFloat64()
				X.Set(i, j, x)
				y[i] += beta[j] * x
			}
			y[i] += sigma * rng.NormFloat64()
			if rng.Float64() < p {
				X.Set(i, 0, nan)
			}
		}
		return X, y
	}
	rng := rand.New(rand.NewPCG(4, 4))
	Xtr, ytr := draw(rng)
	Xte, yte := draw(rng)
	// Var(X0 | X1, X2) for equicorrelation ρ: 1 − 2ρ²/(1+ρ).
	condVar := 1 - 2*rho*rho/(1+rho)
	bayes := sigma*sigma + p*beta[0]*beta[0]*condVar
	mse := func(name string) float64 {
		_, pred := fitPredict(t, name, nil, Xtr, ytr, Xte)
		s := 0.0
		for i, v := range pred {
			s += (v - yte[i]) * (v - yte[i]) / n
		}
		return s
	}
	g, m := mse("linear/gaussian"), mse("linear/mean")
	t.Logf("MSE linear/gaussian %.4f, linear/mean %.4f, Bayes risk %.4f", g, m, bayes)
	if math.Abs(g-bayes) > 0.1*bayes {
		t.Errorf("linear/gaussian MSE %.4f, Bayes risk %.4f", g, bayes)
	}
	if m < 1.2*bayes {
		t.Errorf("linear/mean MSE %.4f unexpectedly close to the Bayes risk %.4f", m, bayes)
	}
}

// TestLinearPipelineMatchesLearner: without NA every imputer is the
// identity, so the pipeline equals the ridge learner alone.
func TestLinearPipelineMatchesLearner(t *testing.T) {
	X := dense([]float64{1, 2}, []float64{2, 0}, []float64{3, 5}, []float64{4, 1}, []float64{0, 3})
	y := []float64{3, 1, 9, 4, 2}
	m, err := linear.Ridge{Lambda: 0.1}.Fit(ctx, X, y, newRNG())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Predict(ctx, X)
	for _, name := range []string{"linear/mean", "linear/gaussian+mask", "linear/oor+mask", "linear/constant"} {
		_, got := fitPredict(t, name, Settings{"lambda": 0.1}, X, y, X)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestNames: every name ParseSpec accepts round-trips, and New either
// builds it or says why not (family not implemented, oracle).
func TestNames(t *testing.T) {
	for _, l := range Learners {
		for _, s := range Strategies(l) {
			for _, mask := range []bool{false, true} {
				spec := Spec{Learner: l, Strategy: s, Mask: mask}
				name := spec.Name()
				got, err := ParseSpec(name)
				if l == Bayes && mask {
					if !errors.Is(err, ErrUnknownPipeline) {
						t.Errorf("%s: %v", name, err)
					}
					continue
				}
				if err != nil || got != spec {
					t.Errorf("ParseSpec(%q) = %+v, %v", name, got, err)
				}
				p, err := New(name, nil, Env{})
				switch {
				case l == Bayes:
					if !errors.Is(err, ErrOracle) {
						t.Errorf("New(%q): %v, want ErrOracle", name, err)
					}
				case slices.Contains(Implemented(), l):
					if err != nil || p.Name() != name || p.Spec() != spec {
						t.Errorf("New(%q): %v", name, err)
					}
				case !errors.Is(err, ErrNotImplemented) || !strings.Contains(err.Error(), `"`+l+`"`):
					t.Errorf("New(%q): %v, want ErrNotImplemented naming %q", name, err, l)
				}
			}
		}
	}
}

func TestBadNames(t *testing.T) {
	for _, name := range []string{"", "linear", "linear/", "/mean", "linear/mia", "linear/mean+mask+mask",
		"Linear/mean", "foo/mean", "bayes/oracle+mask", "linear/mean+MASK", " linear/mean"} {
		if _, err := New(name, nil, Env{}); !errors.Is(err, ErrUnknownPipeline) {
			t.Errorf("New(%q): %v, want ErrUnknownPipeline", name, err)
		}
	}
	if _, err := New("linear/mean", Settings{"cp": 0.1}, Env{}); !errors.Is(err, ErrBadSetting) {
		t.Errorf("bad setting: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	p, err := New("linear/mean+mask", nil, Env{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	good := dense([]float64{1, nan}, []float64{2, 3}, []float64{4, 1})
	inf := dense([]float64{1, math.Inf(1)}, []float64{2, 3}, []float64{4, 1})
	fits := []struct {
		name string
		X    *mat.Dense
		y    []float64
		rng  *rand.Rand
	}{
		{"NaN in y", good, []float64{1, nan, 2}, newRNG()},
		{"Inf in y", good, []float64{1, math.Inf(-1), 2}, newRNG()},
		{"Inf in X", inf, []float64{1, 2, 3}, newRNG()},
		{"short y", good, []float64{1, 2}, newRNG()},
		{"nil X", nil, nil, newRNG()},
		{"empty X", &mat.Dense{}, nil, newRNG()},
		{"nil rng", good, []float64{1, 2, 3}, nil},
	}
	for _, c := range fits {
		if _, err := p.Fit(ctx, c.X, c.y, c.rng); !errors.Is(err, ErrBadInput) {
			t.Errorf("Fit %s: %v, want ErrBadInput", c.name, err)
		}
	}
	f, err := p.Fit(ctx, good, []float64{1, 2, 3}, newRNG())
	if err != nil {
		t.Fatal(err)
	}
	for name, X := range map[string]*mat.Dense{"3 columns": dense([]float64{1, 2, 3}),
		"1 column": dense([]float64{1}), "Inf": inf, "nil": nil, "empty": {}} {
		if _, err := f.Predict(ctx, X); !errors.Is(err, ErrBadInput) {
			t.Errorf("Predict %s: %v, want ErrBadInput", name, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Fit(cancelled, good, []float64{1, 2, 3}, newRNG()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit: %v", err)
	}
	if _, err := f.Predict(cancelled, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Predict: %v", err)
	}
}

func TestFittedAccessors(t *testing.T) {
	p, err := New("linear/gaussian+mask", Settings{"shrink": 0}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Settings()["shrink"]; got != 0 {
		t.Errorf("resolved shrink %v", got)
	}
	f, err := p.Fit(ctx, trainX, trainY, newRNG())
	if err != nil {
		t.Fatal(err)
	}
	g, ok := f.Imputer().(*impute.GaussianFit)
	if !ok || !g.Estimate.Converged {
		t.Fatalf("Imputer() = %T", f.Imputer())
	}
	// shrink = 0: the imputation covariance is EM's.
	if g.Sigma.At(0, 1) != g.Estimate.Sigma.At(0, 1) {
		t.Error("shrink setting not applied")
	}
	if !slices.Equal(f.MaskColumns(), []int{0, 2}) || f.Features() != 5 || f.Spec().Name() != p.Name() {
		t.Errorf("mask %v features %d", f.MaskColumns(), f.Features())
	}
}

// BenchmarkLinearGaussianMask: fit + predict of linear/gaussian+mask on
// the paper's Experiment 1 shape (n = 1000, d = 9, 20% MCAR on X1..X3).
func BenchmarkLinearGaussianMask(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(1000, 9, nil)
	y := make([]float64, 1000)
	for i := range 1000 {
		z := rng.NormFloat64()
		for j := range 9 {
			v := 1 + math.Sqrt(0.5)*(z+rng.NormFloat64())
			y[i] += v * v * float64(max(0, 3-j)) / 3
			if j < 3 && rng.Float64() < 0.2 {
				v = nan
			}
			X.Set(i, j, v)
		}
	}
	p, err := New("linear/gaussian+mask", nil, Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := p.Fit(ctx, X, y, rng)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Predict(ctx, X); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDegenerateTraining: tiny or fully missing training sets fit and
// predict finite values with every linear pipeline (no panic, no NaN).
func TestDegenerateTraining(t *testing.T) {
	sets := map[string]*mat.Dense{
		"one row":          dense([]float64{1, nan}),
		"all missing":      dense([]float64{nan, nan}, []float64{nan, nan}),
		"constant column":  dense([]float64{2, 1}, []float64{2, nan}, []float64{2, 5}),
		"exact copies":     dense([]float64{1, 1}, []float64{2, nan}, []float64{3, 3}, []float64{4, 4}),
		"one column, d=1":  dense([]float64{nan}, []float64{3}),
		"no missing value": dense([]float64{1, 2}, []float64{3, 1}),
	}
	for name, X := range sets {
		n, d := X.Dims()
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(i)
		}
		test := mat.NewDense(2, d, nil)
		for j := range d {
			test.Set(0, j, nan)
			test.Set(1, j, 7)
		}
		for _, s := range Strategies(LinReg) {
			for _, suffix := range []string{"", MaskSuffix} {
				p, err := New(LinReg+"/"+s+suffix, nil, Env{})
				if err != nil {
					t.Fatal(err)
				}
				f, err := p.Fit(ctx, X, y, newRNG())
				if err != nil {
					t.Errorf("%s %s: Fit: %v", name, p.Name(), err)
					continue
				}
				pred, err := f.Predict(ctx, test)
				if err != nil || math.IsNaN(pred[0]) || math.IsNaN(pred[1]) {
					t.Errorf("%s %s: Predict %v, %v", name, p.Name(), pred, err)
				}
			}
		}
	}
}
