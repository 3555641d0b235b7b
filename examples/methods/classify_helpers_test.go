package adapters_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn"
)

// frequencyClassifiers predict the training classes' frequencies, spoilt
// as their setting "bad" asks, in each helper; they print to stdout and
// fail unless y arrives as integer class codes.
var frequencyClassifiers = []struct {
	name, script, src string
	helpers           []string
}{
	{"freq_py", "freq.py", `import numpy as np
from misslab_classify import run_classifier
from misslab_method import with_defaults

def classify(X, y, k, X_test, seed, settings, threads):
    bad = with_defaults(settings, {"bad": 0})["bad"]
    if y.dtype.kind != "i" or y.min() < 0 or y.max() >= k:
        raise ValueError("y is not class codes in 0..k-1: %r" % (y,))
    print("a stray print")
    P = np.tile(np.bincount(y, minlength=k) / len(y), (X_test.shape[0], 1))
    if bad == 1:
        P = P[:, 1:]
    elif bad == 2:
        P[2, 0], P[2, 1] = -0.25, P[2, 1] + 0.25 + P[2, 0]
    elif bad == 3:
        P[1] *= 0.9
    elif bad == 4:
        P[0, 0] = np.nan
    return P

if __name__ == "__main__":
    run_classifier(classify)
`, []string{"misslab_method.py", "misslab_classify.py"}},
	{"freq_r", "freq.R", `source("misslab_classify.R")
run_classifier(function(x, y, k, xtest, seed, settings, threads) {
  bad <- with_defaults(settings, list(bad = 0))$bad
  if (!is.integer(y) || any(y < 0 | y >= k)) stop("y is not class codes in 0..k-1")
  print("a stray print"); cat("a stray cat\n")
  p <- matrix(tabulate(y + 1L, nbins = k) / length(y), nrow(xtest), k, byrow = TRUE)
  if (bad == 1) p <- p[, -1, drop = FALSE]
  if (bad == 2) { p[3, 2] <- p[3, 2] + 0.25 + p[3, 1]; p[3, 1] <- -0.25 }
  if (bad == 3) p[2, ] <- p[2, ] * 0.9
  if (bad == 4) p[1, 1] <- NaN
  p
})
`, []string{"misslab_method.R", "misslab_classify.R"}},
}

// TestClassifierHelpers: each helper hands a classifier integer class
// codes and k, writes its probabilities in the protocol's layout, refuses
// probabilities of the wrong shape, outside [0, 1] or not summing to 1
// with a one-line method error naming the row, survives those errors and
// stray output, and answers a regression request it has no learner for
// with an error.
func TestClassifierHelpers(t *testing.T) {
	for _, tc := range frequencyClassifiers {
		t.Run(tc.name, func(t *testing.T) {
			var prog string
			if strings.HasSuffix(tc.script, ".R") {
				prog = rscript(t)
			} else {
				prog = python(t)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.script), []byte(tc.src), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, h := range tc.helpers {
				copyFile(t, h, filepath.Join(dir, h))
			}
			cat := loadMethods(t, dir, `method "`+tc.name+`" {
  kind    = "learner"
  command = ["`+prog+`", "`+tc.script+`"]
  files   = ["`+tc.script+`", "`+tc.helpers[0]+`", "`+tc.helpers[1]+`"]
  tasks   = ["regression", "classification"]
}
`)
			run := runner(t, cat)
			X, y := classData(rand.New(rand.NewPCG(7, 8)), 40, 2, 3, 0)
			test, _ := classData(rand.New(rand.NewPCG(9, 9)), 7, 2, 3, 0)
			for bad, want := range map[float64]string{
				1: "for 7 test rows of 3 classes",
				2: "probability of class 0 on row 3 is -0.25, want a number in [0, 1]",
				3: "row 2's probabilities sum to 0.",
				4: "probability of class 0 on row 1 is",
			} {
				_, _, err := run.FitPredictProba(ctx(t), call(t, cat, tc.name, 1, learn.Settings{"bad": bad}), X, y, 3, test)
				if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), want) {
					t.Errorf("bad = %v: err = %v, want ErrMethodFailed with %q", bad, err, want)
				}
			}
			P, _, err := run.FitPredictProba(ctx(t), call(t, cat, tc.name, 1, nil), X, y, 3, test)
			if err != nil {
				t.Fatalf("after the errors and stray output: %v", err)
			}
			checkProba(t, P, make([]float64, 7), 3)
			counts := [3]float64{}
			for _, v := range y {
				counts[int(v)]++
			}
			for i := range 7 { // every row, so that a row-major file cannot pass
				for j := range 3 {
					if got, want := P.At(i, j), counts[j]/40; got != want {
						t.Fatalf("P[%d][%d] = %v, want class %d's training frequency %v", i, j, got, j, want)
					}
				}
			}
			_, _, err = run.FitPredict(ctx(t), call(t, cat, tc.name, 1, nil), X, y, test)
			if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "is not supported by this method") {
				t.Errorf("a regression request without a regressor: err = %v, want ErrMethodFailed", err)
			}
		})
	}
}
