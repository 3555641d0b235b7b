package linear_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/linear"
)

// BenchmarkLogistic times Logistic (glm's binomial IRLS) fit +
// PredictProba on a binary class over the paper's Model 1 design, d = 9,
// n_train = n_test = 1000 and 10⁴, with glm(family = binomial) +
// predict timed side by side on the same rows when R is installed
// (testdata/bench_glm.R, OpenBLAS on one thread).
func BenchmarkLogistic(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			ms := learntest.BenchFitPredictProba(b, n, dir, linear.Logistic{}.FitClass)
			re := regexp.MustCompile(fmt.Sprintf(`n=%d : glm\(binomial\) \+ predict: median ([0-9.]+) ms`, n))
			learntest.Reference(b, "glm", ms, re, 1, "env", "OPENBLAS_NUM_THREADS=1", "Rscript", "testdata/bench_glm.R", dir, "5")
		})
	}
}
