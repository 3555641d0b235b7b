package adapters_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn"
)

// strayLearners print to stdout while they fit (print(), a C-level
// write to fd 1, R's print and cat) and fail on request, in each helper.
var strayLearners = []struct {
	name, helper, script, src string
}{
	{"stray_py", "misslab_method.py", "stray.py", `import os
import numpy as np
from misslab_method import run_learner, with_defaults

def fit_predict(X, y, X_test, seed, settings, threads):
    s = with_defaults(settings, {"fail": 0})
    print("a stray print"); os.write(1, b"a stray write to fd 1\n")
    if s["fail"]:
        raise RuntimeError("asked to fail\non two lines")
    return np.full(X_test.shape[0], y.mean())

if __name__ == "__main__":
    run_learner(fit_predict)
`},
	{"stray_r", "misslab_method.R", "stray.R", `source("misslab_method.R")
run_learner(function(x, y, xtest, seed, settings, threads) {
  s <- with_defaults(settings, list(fail = 0))
  print("a stray print"); cat("a stray cat\n"); message("a message")
  if (s$fail == 1) stop("asked to fail\non two lines")
  rep(mean(y), nrow(xtest))
})
`},
}

// TestHelpersProtectStdout: stray output of a method's code never
// reaches the protocol, and its errors come back as one-line method
// errors, with the process still serving.
func TestHelpersProtectStdout(t *testing.T) {
	for _, tc := range strayLearners {
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
			copyFile(t, tc.helper, filepath.Join(dir, tc.helper))
			cat := loadMethods(t, dir, `method "`+tc.name+`" {
  kind    = "learner"
  command = ["`+prog+`", "`+tc.script+`"]
  files   = ["`+tc.script+`", "`+tc.helper+`"]
}
`)
			run := runner(t, cat)
			X, y := linearData(rand.New(rand.NewPCG(7, 8)), 50, 2, 0)
			_, _, err := run.FitPredict(ctx(t), call(t, cat, tc.name, 1, learn.Settings{"fail": 1}), X, y, X)
			if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "asked to fail on two lines") {
				t.Errorf("err = %v, want ErrMethodFailed with the message on one line", err)
			}
			pred, _, err := run.FitPredict(ctx(t), call(t, cat, tc.name, 1, nil), X, y, X)
			if err != nil {
				t.Fatalf("FitPredict after stray output: %v", err)
			}
			if mean := meanOf(y); math.Abs(pred[0]-mean) > 1e-12 {
				t.Errorf("prediction %v, want the training mean %v", pred[0], mean)
			}
		})
	}
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
