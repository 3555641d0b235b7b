package boost

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkFitPredict is the benchmark: fit with the defaults (500
// rounds, exact method) on the paper's Model 1 with n_train = 1000, d = 9,
// ρ = 0.5, 20% MCAR on three columns, then predict 1000 test rows. Compare
// with testdata/bench_xgboost.py (XGBoost exact, nthread=1).
func BenchmarkFitPredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 11))
	Xtr, ytr := quadratic(rng, 1000, 9, 0.5, 0.2)
	Xte, _ := quadratic(rng, 1000, 9, 0.5, 0.2)
	p := DefaultParams()
	for b.Loop() {
		m, err := Fit(context.Background(), Xtr, ytr, p, rng)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Predict(context.Background(), Xte); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredict times prediction alone (1000 rows, 500 trees).
func BenchmarkPredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 11))
	Xtr, ytr := quadratic(rng, 1000, 9, 0.5, 0.2)
	Xte, _ := quadratic(rng, 1000, 9, 0.5, 0.2)
	m, err := Fit(context.Background(), Xtr, ytr, DefaultParams(), rng)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Predict(context.Background(), Xte); err != nil {
			b.Fatal(err)
		}
	}
}
