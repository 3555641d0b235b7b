package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// gaussData draws n rows of d equicorrelated (rho) standard Gaussian
// columns, Y = X1² + X2² + X3² + N(0, 0.1²) (the paper's Model 1), and
// masks each of the first nNA columns MCAR with probability rate.
func gaussData(n, d, nNA int, rho, rate float64, rng *rand.Rand) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	a, b := math.Sqrt(rho), math.Sqrt(1-rho)
	for i := range n {
		z := rng.NormFloat64()
		row := X.RawRowView(i)
		for j := range d {
			row[j] = 1 + a*z + b*rng.NormFloat64()
		}
		y[i] = row[0]*row[0] + row[1]*row[1] + row[2]*row[2] + 0.1*rng.NormFloat64()
		for j := range nNA {
			if rng.Float64() < rate {
				row[j] = math.NaN()
			}
		}
	}
	return X, y
}

// BenchmarkFitPredict times one tree fit on 1000 rows plus prediction of
// 1000 rows for every strategy, with the paper's controls, on the data
// set testdata/bench_rpart.R wrote and timed rpart on (the paper's Model
// 1, d = 9, rho = 0.5, 20% MCAR on x1..x3); rpart's times on this machine
// are in testdata/bench_rpart_timing.txt.
func BenchmarkFitPredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	X, y, Xt := benchData(b)
	for _, st := range []Strategy{Surrogate, MIA, Block, Prob, Majority} {
		b.Run(st.String(), func(b *testing.B) {
			p := PaperDefaults()
			p.Strategy = st
			c0 := learntest.CPUTime()
			for b.Loop() {
				tr, err := Fit(context.Background(), X, y, p, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tr.Predict(context.Background(), Xt); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// BenchmarkLevel times fits of a full-grown tree (minbucket 1) on 1000
// rows with d = 18 (20% MCAR on three columns) cut at depths 1, 4 and 8:
// depth 1 is the presort plus one level, and the slope between depths is
// the cost of one level.
func BenchmarkLevel(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	X, y := gaussData(1000, 18, 3, 0.5, 0.2, rng)
	for _, st := range []Strategy{Surrogate, MIA, Block} {
		for _, depth := range []int{1, 4, 8} {
			b.Run(fmt.Sprintf("%v/depth=%d", st, depth), func(b *testing.B) {
				p := Params{Strategy: st, MinSplit: 2, MinBucket: 1, MaxDepth: depth, MaxSurrogate: 5}
				c0 := learntest.CPUTime()
				for b.Loop() {
					if _, err := Fit(context.Background(), X, y, p, rng); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0)
			})
		}
	}
}

// reportCPU reports the CPU time per iteration since c0 (user+system, all
// threads), which, unlike ns/op, does not grow when other processes share
// the cores.
func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64(learntest.CPUTime()-c0)/float64(b.N), "cpu-ns/op")
}

// benchData reads the benchmark training set and test set.
func benchData(b *testing.B) (*mat.Dense, []float64, *mat.Dense) {
	train := learntest.ReadCSV(b, filepath.Join("testdata", "bench_train.csv"))
	test := learntest.ReadCSV(b, filepath.Join("testdata", "bench_test.csv"))
	xn := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"}
	return train.Matrix(b, xn), train.Column(b, "y"), test.Matrix(b, xn)
}
