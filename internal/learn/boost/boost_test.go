package boost

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// bayesR2 is the R² of E[Y | observed X] for the quadratic model with
// MCAR rate p on X1..X3: 1 − E[Var(Y | X_obs)]/Var(Y). For a missing set
// M with conditional covariance S and conditional mean m,
// Var(Σ_M X_j² | X_O) = 2 tr(S²) + 4 mᵀSm and E[m mᵀ] = μμᵀ + (Σ_MM − S).
func bayesR2(d int, rho, p float64) float64 {
	sigma := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return rho
	}
	mse := 0.01
	for pat := 1; pat < 8; pat++ {
		var miss, obs []int
		prob := 1.0
		for j := range d {
			switch {
			case j < 3 && pat>>j&1 == 1:
				miss, prob = append(miss, j), prob*p
			case j < 3:
				obs, prob = append(obs, j), prob*(1-p)
			default:
				obs = append(obs, j)
			}
		}
		block := func(r, c []int) *mat.Dense {
			B := mat.NewDense(len(r), len(c), nil)
			for a, i := range r {
				for b, j := range c {
					B.Set(a, b, sigma(i, j))
				}
			}
			return B
		}
		var sol, S, C, SS, SC mat.Dense
		if err := sol.Solve(block(obs, obs), block(obs, miss)); err != nil {
			panic(err)
		}
		C.Mul(block(miss, obs), &sol)
		S.Sub(block(miss, miss), &C)
		SS.Mul(&S, &S)
		SC.Mul(&S, &C)
		ones := mat.NewVecDense(len(miss), nil)
		for i := range len(miss) {
			ones.SetVec(i, 1)
		}
		mse += prob * (2*mat.Trace(&SS) + 4*mat.Inner(ones, &S, ones) + 4*mat.Trace(&SC))
	}
	return 1 - mse/quadraticVariance(rho)
}

// TestQuadraticR2 checks the statistical behaviour on the paper's
// Experiment 1 setting (Model 1, d = 9, ρ = 0.5, 20% MCAR on X1..X3,
// n = 1000, defaults with 500 rounds, 5000 test rows). XGBoost 1.7.4
// itself reaches a test R² of 0.862 (sd 0.011 over 20 draws,
// testdata/r2_reference.py; this package gives 0.860 over 20 draws of its
// own); the Bayes predictor reaches 0.927, the ceiling no learner can
// pass. The mean over three draws must lie within ±0.03 (about 4.5
// standard errors) of XGBoost's, and every draw below the Bayes R².
func TestQuadraticR2(t *testing.T) {
	bayes := bayesR2(9, 0.5, 0.2)
	if math.Abs(bayes-0.9271) > 5e-4 {
		t.Fatalf("Bayes R² = %.4f, closed form in testdata/r2_reference.py gives 0.9271", bayes)
	}
	v := quadraticVariance(0.5)
	const draws = 3
	mean := 0.0
	for s := range uint64(draws) {
		rng := newRNG(100 + s)
		Xtr, ytr := quadratic(rng, 1000, 9, 0.5, 0.2)
		Xte, yte := quadratic(rng, 5000, 9, 0.5, 0.2)
		m, err := Fit(context.Background(), Xtr, ytr, DefaultParams(), rng)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(context.Background(), Xte)
		if err != nil {
			t.Fatal(err)
		}
		mse := 0.0
		for i := range pred {
			mse += (pred[i] - yte[i]) * (pred[i] - yte[i])
		}
		r2 := 1 - mse/float64(len(pred))/v
		t.Logf("draw %d: test R² = %.4f (Bayes %.4f)", s, r2, bayes)
		if r2 >= bayes {
			t.Errorf("draw %d: R² %.4f beats the Bayes R² %.4f", s, r2, bayes)
		}
		mean += r2 / draws
	}
	if math.Abs(mean-0.862) > 0.03 {
		t.Errorf("mean test R² %.4f, XGBoost reaches 0.862 (sd of a 3-draw mean ≈ 0.0065)", mean)
	}
}

// TestMissingVersusObserved checks an MIA split by hand. X = (1, 2, 3,
// NA, NA), y = (0, 0, 0, 10, 10), base 0, η = 1, λ = 0, one stump. The
// loss change of "observed | missing" is 20²/2 − 20²/5 = 120, better
// than any threshold among the observed values (at most 400/3 − 80); the
// ascending scan finds it first, so the threshold is 3 + (3 + 1e-6) in
// float32 and missing values go right. Leaves are −G/H: 0 and 10.
func TestMissingVersusObserved(t *testing.T) {
	nan := math.NaN()
	X := mat.NewDense(5, 1, []float64{1, 2, 3, nan, nan})
	y := []float64{0, 0, 0, 10, 10}
	p := DefaultParams()
	p.Rounds, p.Eta, p.Lambda, p.MaxDepth, p.BaseScore = 1, 1, 0, 1, 0
	var got *tree
	m, err := fit(context.Background(), X, y, p, newRNG(1), func(t *tree) { got = t })
	if err != nil {
		t.Fatal(err)
	}
	root := got.nodes[0]
	if root.feat != 0 || root.thresh != float32(3)+(float32(3)+1e-6) || root.defLeft || root.loss != 120 {
		t.Fatalf("root split f%d < %v default-left %v loss %v, want f0 < 6.000001 right 120",
			root.feat, root.thresh, root.defLeft, root.loss)
	}
	test := mat.NewDense(5, 1, []float64{-100, 3, 6, 7, nan})
	pred, err := m.Predict(context.Background(), test)
	if err != nil {
		t.Fatal(err)
	}
	// 6 < 6.000001 goes left; 7 goes right, with the missing values.
	want := []float64{0, 0, 0, 10, 10}
	for i := range want {
		if pred[i] != want[i] {
			t.Errorf("x = %v: prediction %v, want %v", test.At(i, 0), pred[i], want[i])
		}
	}
}

// TestDeterministic checks that the fit uses no randomness at the
// defaults: different random sources give identical models.
func TestDeterministic(t *testing.T) {
	X, y := quadratic(newRNG(3), 300, 5, 0.5, 0.3)
	p := DefaultParams()
	p.Rounds = 30
	var preds [2][]float64
	for k := range preds {
		m, err := Fit(context.Background(), X, y, p, newRNG(uint64(k)))
		if err != nil {
			t.Fatal(err)
		}
		if preds[k], err = m.Predict(context.Background(), X); err != nil {
			t.Fatal(err)
		}
	}
	for i := range preds[0] {
		if preds[0][i] != preds[1][i] {
			t.Fatalf("row %d: %v vs %v with another random source", i, preds[0][i], preds[1][i])
		}
	}
}

// TestConcurrentPredict runs Predict from several goroutines (for -race)
// and checks they agree.
func TestConcurrentPredict(t *testing.T) {
	X, y := quadratic(newRNG(4), 200, 4, 0.5, 0.2)
	p := DefaultParams()
	p.Rounds = 10
	m, err := Fit(context.Background(), X, y, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Predict(context.Background(), X)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := m.Predict(context.Background(), X)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("row %d: %v vs %v", i, got[i], want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCancelled(t *testing.T) {
	X, y := quadratic(newRNG(5), 100, 3, 0.5, 0.2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, X, y, DefaultParams(), newRNG(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestZeroRounds checks that without trees every prediction is the base
// score, XGBoost's 0.5.
func TestZeroRounds(t *testing.T) {
	X, y := quadratic(newRNG(6), 50, 3, 0.5, 0.2)
	p := DefaultParams()
	p.Rounds = 0
	m, err := Fit(context.Background(), X, y, p, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	pred, _ := m.Predict(context.Background(), X)
	for i, v := range pred {
		if v != 0.5 {
			t.Fatalf("row %d: %v, want base score 0.5", i, v)
		}
	}
}
