package svm_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/svm"
)

func benchFitPredict(b *testing.B, mask bool) {
	reg, err := svm.New(svm.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	ms := learntest.BenchFitPredict(b, mask, reg.Fit)
	tag := regexp.QuoteMeta("d=9")
	if mask {
		tag = regexp.QuoteMeta("d=9+3 mask")
	}
	// e1071 with fitted = FALSE: its defaults also compute the training
	// fit, which misslab's SVM does not.
	re := regexp.MustCompile(tag + ` : e1071::svm \(fitted = FALSE\) \+ predict:\s+median ([0-9.]+) ms`)
	learntest.Reference(b, "e1071", ms, re, 1, "Rscript", "testdata/bench_e1071.R", strconv.Itoa(benchRefReps))
}

// benchRefReps is the number of fits a reference script times.
const benchRefReps = 10

// BenchmarkFitPredict: n_train = n_test = 1000, d = 9, 20% MCAR on three
// columns, mean-imputed, e1071 defaults. Target: at least as fast as
// e1071::svm + predict, timed side by side in the same run when R and
// e1071 are installed (testdata/bench_e1071.R; `make references`).
func BenchmarkFitPredict(b *testing.B) { benchFitPredict(b, false) }

// BenchmarkFitPredictMask is BenchmarkFitPredict with the three mask
// columns appended (p = 12).
func BenchmarkFitPredictMask(b *testing.B) { benchFitPredict(b, true) }
