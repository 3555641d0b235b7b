package adapters_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methods"
)

// classData draws n rows of d N(0,1) covariates whose class is the band
// of x1 among k of equal probability (x1 stays observed), each entry of
// columns 2..d NA with probability rate.
func classData(r *rand.Rand, n, d, k int, rate float64) (*mat.Dense, []float64) {
	cuts := map[int][]float64{2: {0}, 3: {-0.4307, 0.4307}}[k]
	X, _ := linearData(r, n, d, rate)
	y := make([]float64, n)
	for i := range n {
		for _, c := range cuts {
			if X.At(i, 0) > c {
				y[i]++
			}
		}
	}
	return X, y
}

// checkProba fails unless P holds m rows of k probabilities summing to 1
// and returns the share of rows whose most probable class is y's.
func checkProba(t *testing.T, P *mat.Dense, y []float64, k int) float64 {
	t.Helper()
	if r, c := P.Dims(); r != len(y) || c != k {
		t.Fatalf("%d × %d probabilities, want %d × %d", r, c, len(y), k)
	}
	right := 0
	for i := range y {
		row, best, sum := P.RawRowView(i), 0, 0.0
		for j, v := range row {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("row %d: probability %v", i, v)
			}
			sum += v
			if v > row[best] {
				best = j
			}
		}
		if math.Abs(sum-1) > learn.ProbaSumTol {
			t.Fatalf("row %d sums to %v", i, sum)
		}
		if float64(best) == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// TestClassifiers runs the shipped classifiers through the worker's
// runner: scikit-learn's logistic regression (classification only) and
// the R ridge model (both tasks, one process), on data with NA, for two
// and three classes. Each is accurate, repeats itself bit for bit, and
// rejects a setting it does not know by name; logit is refused a
// regression request, ridge_r answers one.
func TestClassifiers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Python and R processes")
	}
	cat := installMethods(t, python(t), rscript(t))
	run := runner(t, cat)
	r := rand.New(rand.NewPCG(11, 12))
	for _, name := range []string{"logit", "ridge_r"} {
		for _, k := range []int{2, 3} {
			X, y := classData(r, 400, 4, k, 0.2)
			Xt, yt := classData(r, 200, 4, k, 0.2)
			c := call(t, cat, name, 77, nil)
			P, tm, err := run.FitPredictProba(ctx(t), c, X, y, k, Xt)
			if err != nil {
				t.Fatalf("%s, k = %d: %v", name, k, err)
			}
			acc := checkProba(t, P, yt, k)
			t.Logf("%s, k = %d: test accuracy %.3f, fit %.3fs, predict %.3fs", name, k, acc, tm.FitSeconds, tm.PredictSeconds)
			if acc < 0.85 {
				t.Errorf("%s, k = %d: test accuracy %.3f, want > 0.85 for classes that are bands of x1", name, k, acc)
			}
			again, _, err := run.FitPredictProba(ctx(t), c, X, y, k, Xt)
			if err != nil || !mat.Equal(P, again) {
				t.Errorf("%s, k = %d: a second call differs (%v)", name, k, err)
			}
		}
		X, y := classData(r, 100, 3, 2, 0)
		_, _, err := run.FitPredictProba(ctx(t), call(t, cat, name, 1, learn.Settings{"lamda": 1}), X, y, 2, X)
		if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "lamda") {
			t.Errorf("%s: a misspelt setting: err = %v, want ErrMethodFailed naming lamda", name, err)
		}
	}
	X, y := linearData(r, 300, 3, 0.2)
	Xt, yt := linearData(r, 100, 3, 0.2)
	if _, _, err := run.FitPredict(ctx(t), call(t, cat, "logit", 1, nil), X, y, Xt); !errors.Is(err, methods.ErrUnknownMethod) {
		t.Errorf("a regression request to logit: err = %v, want ErrUnknownMethod", err)
	}
	pred, _, err := run.FitPredict(ctx(t), call(t, cat, "ridge_r", 1, learn.Settings{"lambda": 0.1}), X, y, Xt)
	if err != nil {
		t.Fatalf("ridge_r regression: %v", err)
	}
	if got := r2(yt, pred); got < 0.9 {
		t.Errorf("ridge_r: test R² = %.3f, want > 0.9 for y = x1 + noise", got)
	}
}

// TestClassifierMissingClass: a class absent from the training set still
// has its column (probability 0 for logit), and a training set of one
// class predicts it with certainty.
func TestClassifierMissingClass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Python process")
	}
	cat := installMethods(t, python(t), "")
	run := runner(t, cat)
	X, y := classData(rand.New(rand.NewPCG(3, 3)), 120, 3, 2, 0.1) // classes 0 and 1 of k = 3
	for _, tc := range []struct {
		y    []float64
		want func(P *mat.Dense) bool
	}{
		{y, func(P *mat.Dense) bool { return mat.Sum(P.ColView(2)) == 0 }},
		{make([]float64, 120), func(P *mat.Dense) bool { return mat.Sum(P.ColView(0)) == 120 }},
	} {
		P, _, err := run.FitPredictProba(ctx(t), call(t, cat, "logit", 1, nil), X, tc.y, 3, X)
		if err != nil {
			t.Fatal(err)
		}
		checkProba(t, P, tc.y, 3)
		if !tc.want(P) {
			t.Errorf("probabilities %v…", P.RawRowView(0))
		}
	}
}

// TestDocClassifier runs the classifier of docs/METHODS.md's
// Classification section as a user would: its Python script and its
// methods file, copied from the page.
func TestDocClassifier(t *testing.T) {
	py := python(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "METHODS.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fenced(t, string(doc), "<!-- example-classifier: my_prior.py")
	if err := os.WriteFile(filepath.Join(dir, "my_prior.py"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"misslab_method.py", "misslab_classify.py"} {
		copyFile(t, h, filepath.Join(dir, h))
	}
	cat := loadMethods(t, dir, interpreters(fenced(t, string(doc), "<!-- example-classifier-methods-file"), py, ""))
	if m, _ := cat.Lookup("prior"); !m.Classifies() || m.Regresses() {
		t.Fatalf("the documented methods file: %+v, want a classifier only", m)
	}
	X, y := classData(rand.New(rand.NewPCG(1, 2)), 90, 2, 3, 0.1)
	P, _, err := runner(t, cat).FitPredictProba(ctx(t), call(t, cat, "prior", 3, learn.Settings{"alpha": 0}), X, y, 3, X)
	if err != nil {
		t.Fatalf("the documented classifier fails: %v", err)
	}
	checkProba(t, P, y, 3)
	for j := range 3 {
		n := 0
		for _, v := range y {
			if int(v) == j {
				n++
			}
		}
		if got, want := P.At(0, j), float64(n)/90; math.Abs(got-want) > 1e-15 {
			t.Errorf("class %d: probability %v, want its training frequency %v", j, got, want)
		}
	}
}
