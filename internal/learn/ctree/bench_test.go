package ctree

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkFitPredict times one fit on 1000 rows plus prediction of 1000
// rows, on the data of testdata/bench_partykit.R (the paper's quadratic
// model, d = 9, 20% MCAR on three columns), with the paper's controls,
// without ("d=9") and with ("d=12") the three mask columns, and with
// surrogates. Besides ns/op (wall time) it reports cpu-ns/op, the
// process's CPU time per iteration, which other load on the machine does
// not inflate. Compare with partykit's times on this machine in
// testdata/bench_partykit_timing.txt; run with -cpu 1.
func BenchmarkFitPredict(b *testing.B) {
	train := learntest.ReadCSV(&testing.T{}, filepath.Join("testdata", "bench_train.csv"))
	test := learntest.ReadCSV(&testing.T{}, filepath.Join("testdata", "bench_test.csv"))
	xn := train.XNames()
	X, y, Xt := train.Matrix(&testing.T{}, xn), train.Column(&testing.T{}, "y"), test.Matrix(&testing.T{}, xn)
	surr := PaperDefaults()
	surr.MaxSurrogate = 3
	for _, bc := range []struct {
		name  string
		X, Xt *mat.Dense
		p     Params
	}{
		{"d=9", X, Xt, PaperDefaults()},
		{"d=12", withMask(X, 3), withMask(Xt, 3), PaperDefaults()},
		{"d=9/surrogate", X, Xt, surr},
		{"d=9/partykit-defaults", X, Xt, PartykitDefaults()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			cpu0 := learntest.CPUTime()
			for b.Loop() {
				tr, err := Fit(context.Background(), bc.X, y, bc.p, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tr.Predict(context.Background(), bc.Xt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(learntest.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
