package learntest

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Predictor is a fitted model as the learner packages return it.
type Predictor interface {
	Predict(ctx context.Context, X *mat.Dense) ([]float64, error)
}

// BenchFitPredict times fit + predict of a complete-data learner on the
// paper's Model 1 design (PaperData: n_train = n_test = 1000, d = 9, 20%
// MCAR on three columns, mean-imputed, plus the three mask columns when
// mask), reporting CPU milliseconds per operation beside wall time, and
// returns them.
func BenchFitPredict[M Predictor](b *testing.B, mask bool, fit func(context.Context, *mat.Dense, []float64, *rand.Rand) (M, error)) float64 {
	r := rand.New(rand.NewPCG(7, 11))
	Xtr, ytr, means := PaperData(r, 1000, nil, mask)
	Xte, _, _ := PaperData(r, 1000, means, mask)
	ctx := context.Background()
	b.ReportAllocs()
	start := CPUTime()
	for b.Loop() {
		m, err := fit(ctx, Xtr, ytr, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Predict(ctx, Xte); err != nil {
			b.Fatal(err)
		}
	}
	ms := float64(CPUTime()-start) / float64(b.N) / 1e6
	b.ReportMetric(ms, "cpu-ms/op")
	return ms
}
