package impute

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchData is the paper's Experiment 1 design: n = 1000, d = 9,
// X ~ N(1, 0.5·11ᵀ + 0.5·I), 20% MCAR on X1..X3.
func benchData() *mat.Dense {
	mu := make([]float64, 9)
	for j := range mu {
		mu[j] = 1
	}
	return gaussianSample(rand.New(rand.NewPCG(1, 2)), 1000, mu, equicorrelated(9, 0.5), 0.2, []int{0, 1, 2})
}

func benchImputer(b *testing.B, imp Imputer) {
	X := benchData()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tr, err := imp.Fit(ctx, X)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Transform(X); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGaussian: EM + imputation of the training matrix; target < 5 ms.
func BenchmarkGaussian(b *testing.B) { benchImputer(b, NewGaussian()) }

func BenchmarkMean(b *testing.B)   { benchImputer(b, Mean{}) }
func BenchmarkMedian(b *testing.B) { benchImputer(b, Median{}) }
func BenchmarkOOR(b *testing.B)    { benchImputer(b, OOR{}) }
func BenchmarkMIAInf(b *testing.B) { benchImputer(b, MIAInf{}) }

// BenchmarkGaussianAllColumns is the paper's Experiment 2 shape: n = 1000,
// d = 10, 20% MCAR on every column (hundreds of distinct patterns).
func BenchmarkGaussianAllColumns(b *testing.B) {
	mu := make([]float64, 10)
	cols := make([]int, 10)
	for j := range mu {
		mu[j], cols[j] = 1, j
	}
	X := gaussianSample(rand.New(rand.NewPCG(1, 2)), 1000, mu, equicorrelated(10, 0.5), 0.2, cols)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tr, err := NewGaussian().Fit(ctx, X)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Transform(X); err != nil {
			b.Fatal(err)
		}
	}
}
