package impute

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestConditionalExpectationSchur checks the imputation of rows with
// several patterns against μ_m + Σ_mo Σ_oo⁻¹ (x_o − μ_o) computed here
// with an explicit inverse of Σ_oo, independently of the Cholesky path.
func TestConditionalExpectationSchur(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mu := []float64{1, 1, 1, 1, 1, 1}
	X := gaussianSample(rng, 300, mu, equicorrelated(6, 0.5), 0.25, []int{0, 1, 2, 4})
	tr, err := NewGaussian().Fit(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	g := tr.(*GaussianFit)
	rows := dense(
		[]float64{nan, 0.3, 2, -1, 0.5, 4},
		[]float64{nan, nan, nan, 0.7, nan, 1.2},
		[]float64{2.5, nan, 1, 1, 1, nan},
		[]float64{nan, -1, nan, nan, 3, nan},
	)
	got, err := g.Transform(rows)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		want := schur(t, rows.RawRowView(i), g.Mu, g.Sigma)
		for j, w := range want {
			if !near(got.At(i, j), w, 1e-10) {
				t.Errorf("row %d col %d: %.12g, Schur %.12g", i, j, got.At(i, j), w)
			}
		}
	}
}

func schur(t *testing.T, x, mu []float64, sigma *mat.SymDense) []float64 {
	var obs, mis []int
	for j, v := range x {
		if math.IsNaN(v) {
			mis = append(mis, j)
		} else {
			obs = append(obs, j)
		}
	}
	soo := mat.NewDense(len(obs), len(obs), nil)
	smo := mat.NewDense(len(mis), len(obs), nil)
	r := mat.NewVecDense(len(obs), nil)
	for a, ja := range obs {
		r.SetVec(a, x[ja]-mu[ja])
		for b, jb := range obs {
			soo.Set(a, b, sigma.At(ja, jb))
		}
		for b, jb := range mis {
			smo.Set(b, a, sigma.At(jb, ja))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(soo); err != nil {
		t.Fatal(err)
	}
	var w, m mat.VecDense
	w.MulVec(&inv, r)
	m.MulVec(smo, &w)
	out := append([]float64(nil), x...)
	for b, j := range mis {
		out[j] = mu[j] + m.AtVec(b)
	}
	return out
}

func TestGaussianEdgeCases(t *testing.T) {
	ctx := context.Background()
	t.Run("fully missing row gets mu", func(t *testing.T) {
		X := dense([]float64{1, 2}, []float64{2, 5}, []float64{4, 3}, []float64{nan, nan})
		tr, err := NewGaussian().Fit(ctx, X)
		if err != nil {
			t.Fatal(err)
		}
		g := tr.(*GaussianFit)
		got, _ := tr.Transform(X)
		if got.At(3, 0) != g.Mu[0] || got.At(3, 1) != g.Mu[1] {
			t.Errorf("row %v, mu %v", got.RawRowView(3), g.Mu)
		}
		// The fully missing row does not move the complete-data MLE.
		if !near(g.Mu[0], 7.0/3, 1e-7) || !near(g.Mu[1], 10.0/3, 1e-7) {
			t.Errorf("mu %v, want [7/3 10/3]", g.Mu)
		}
	})
	t.Run("never observed column imputes 0", func(t *testing.T) {
		X := dense([]float64{1, nan}, []float64{2, nan}, []float64{4, nan})
		tr, err := NewGaussian().Fit(ctx, X)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := tr.Transform(X)
		for i := range 3 {
			if got.At(i, 1) != 0 {
				t.Errorf("row %d imputed %v, want 0", i, got.At(i, 1))
			}
		}
	})
	t.Run("exact copy (paper's Example 2) is recovered up to shrinkage", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		X := mat.NewDense(200, 2, nil)
		for i := range 200 {
			v := rng.Float64()
			X.Set(i, 0, v)
			X.Set(i, 1, v)
			if i%2 == 0 {
				X.Set(i, 1, nan)
			}
		}
		tr, err := Gaussian{}.Fit(ctx, X) // no shrinkage: X2 = X1 exactly
		if err != nil {
			t.Fatal(err)
		}
		got, _ := tr.Transform(X)
		for i := 0; i < 200; i += 2 {
			if !near(got.At(i, 1), got.At(i, 0), 1e-6) {
				t.Fatalf("row %d: imputed %v for x1 = %v", i, got.At(i, 1), got.At(i, 0))
			}
		}
	})
	t.Run("single row", func(t *testing.T) {
		X := dense([]float64{1, nan, 3})
		tr, err := NewGaussian().Fit(ctx, X)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := tr.Transform(dense([]float64{nan, 5, nan}))
		if got.At(0, 0) != 1 || got.At(0, 2) != 3 {
			t.Errorf("imputed %v, want [1 5 3]", got.RawRowView(0))
		}
	})
}

func TestShrink(t *testing.T) {
	s := mat.NewSymDense(2, []float64{2, 1, 1, 4})
	got := Shrink(s, 0.01)
	// tr = 6: diagonal 0.99·v + 0.06, off-diagonal 0.99·v.
	want := []float64{1.98 + 0.06, 0.99, 0.99, 3.96 + 0.06}
	for k, w := range want {
		if !near(got.At(k/2, k%2), w, 1e-15) {
			t.Errorf("entry %d = %v, want %v", k, got.At(k/2, k%2), w)
		}
	}
}
