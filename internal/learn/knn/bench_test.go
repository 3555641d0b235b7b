package knn_test

import (
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
