package boost

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
)

// BenchmarkClassBoost is issue 25's benchmark: FitClass with two classes
// at the defaults (500 rounds, exact method) on the paper's Model 1
// covariates (d = 9, ρ = 0.5, 20% MCAR on three columns) with labels
// drawn through a logistic link (binaryQuadratic), n training rows,
// then PredictProba on 1000 test rows. XGBoost exact (binary:logistic,
// nthread = 1) is timed side by side on data of the same design when
// installed (testdata/bench_xgboost_class.py; `make references`), as CPU
// time, and the ratio reported.
func BenchmarkClassBoost(b *testing.B) {
	for _, c := range []struct{ n, reps int }{{1000, 5}, {10000, 3}} {
		b.Run(fmt.Sprintf("n=%d", c.n), func(b *testing.B) {
			rng := newRNG(7)
			Xtr, ytr := binaryQuadratic(rng, c.n, 9, 0.5, 0.2)
			Xte, _ := binaryQuadratic(rng, 1000, 9, 0.5, 0.2)
			p := DefaultParams()
			start := learntest.CPUTime()
			defer func() {
				ms := float64(learntest.CPUTime()-start) / float64(b.N) / 1e6
				b.ReportMetric(ms, "cpu-ms/op")
				re := regexp.MustCompile(`cpu median ([0-9.]+) s`)
				learntest.Reference(b, "xgboost", ms, re, 1000, "/usr/bin/python3",
					"testdata/bench_xgboost_class.py", fmt.Sprint(c.n), fmt.Sprint(c.reps))
			}()
			for b.Loop() {
				m, err := FitClass(context.Background(), Xtr, ytr, 2, p, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.PredictProba(context.Background(), Xte); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
