package boost

import (
	"context"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
)

// BenchmarkFitPredict is the benchmark: fit with the defaults (500
// rounds, exact method) on the paper's Model 1 with n_train = 1000, d = 9,
// ρ = 0.5, 20% MCAR on three columns, then predict 1000 test rows.
// XGBoost exact (nthread = 1) is timed side by side on data of the same
// design when installed (testdata/bench_xgboost.py; `make references`).
func BenchmarkFitPredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 11))
	Xtr, ytr := quadratic(rng, 1000, 9, 0.5, 0.2)
	Xte, _ := quadratic(rng, 1000, 9, 0.5, 0.2)
	p := DefaultParams()
	start := learntest.CPUTime()
	defer func() {
		ms := float64(learntest.CPUTime()-start) / float64(b.N) / 1e6
		b.ReportMetric(ms, "cpu-ms/op")
		re := regexp.MustCompile(`cpu median ([0-9.]+) s`)
		learntest.Reference(b, "xgboost", ms, re, 1000, "/usr/bin/python3", "testdata/bench_xgboost.py", "7")
	}()
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
