package svm_test

import (
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/svm"
)

func benchFitPredict(b *testing.B, mask bool) {
	reg, err := svm.New(svm.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	learntest.BenchFitPredict(b, mask, reg.Fit)
}

// BenchmarkFitPredict: n_train = n_test = 1000, d = 9, 20% MCAR on three
// columns, mean-imputed, e1071 defaults. Target: at least as fast as
// e1071::svm + predict on the same machine (testdata/bench_e1071.R).
func BenchmarkFitPredict(b *testing.B) { benchFitPredict(b, false) }

// BenchmarkFitPredictMask is BenchmarkFitPredict with the three mask
// columns appended (p = 12).
func BenchmarkFitPredictMask(b *testing.B) { benchFitPredict(b, true) }
