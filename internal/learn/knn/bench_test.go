package knn_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/knn"
)

// BenchmarkFitPredict: n_train = n_test = 1000, d = 9, 20% MCAR on three
// columns, mean-imputed. Target: under 5 ms on one core.
func BenchmarkFitPredict(b *testing.B) {
	learntest.BenchFitPredict(b, false, knn.Regressor{K: knn.DefaultK}.Fit)
}

// BenchmarkFitPredictMask is BenchmarkFitPredict with the three mask
// columns appended (p = 12).
func BenchmarkFitPredictMask(b *testing.B) {
	learntest.BenchFitPredict(b, true, knn.Regressor{K: knn.DefaultK}.Fit)
}

// BenchmarkKNN3 times Classifier (caret's knn3, k = 5) fit +
// PredictProba on a binary class over the paper's Model 1 design, d = 9,
// n_train = n_test = 1000 and 10⁴, with caret::knn3 + predict timed side
// by side on the same rows when R and caret are installed
// (testdata/bench_knn3.R).
func BenchmarkKNN3(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			ms := learntest.BenchFitPredictProba(b, n, dir, knn.Classifier{K: knn.DefaultK}.FitClass)
			re := regexp.MustCompile(fmt.Sprintf(`n=%d : caret::knn3\(k = 5\) \+ predict\(prob\): median ([0-9.]+) ms`, n))
			learntest.Reference(b, "knn3", ms, re, 1, "Rscript", "testdata/bench_knn3.R", dir, "3")
		})
	}
}
