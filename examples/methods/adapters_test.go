package adapters_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/sim"
)

// TestShippedMethodsFile loads the committed methods.hcl as a worker
// would (no interpreter needed): six methods of the right kinds and
// tasks, each identity covering the script and its helper libraries.
func TestShippedMethodsFile(t *testing.T) {
	cat, err := methods.Load("methods.hcl")
	if err != nil {
		t.Fatalf("methods.Load: %v", err)
	}
	want := []struct {
		name    string
		kind    methodid.Kind
		missing bool
		files   []string
		tasks   methodid.Tasks
	}{
		{"hgb", methodid.Learner, true, []string{"sklearn_hgb.py", "misslab_method.py"}, methodid.TasksRegression},
		{"sk_iterative", methodid.Imputer, false, []string{"sklearn_iterative.py", "misslab_method.py"}, methodid.TasksRegression},
		{"knn_impute", methodid.Imputer, false, []string{"sklearn_knn.py", "misslab_method.py"}, methodid.TasksRegression},
		{"rpart", methodid.Learner, true, []string{"rpart_surrogate.R", "misslab_method.R"}, methodid.TasksRegression},
		{"logit", methodid.Learner, true, []string{"sklearn_logit.py", "misslab_method.py", "misslab_classify.py"}, methodid.TasksClassification},
		{"ridge_r", methodid.Learner, true, []string{"ridge_r.R", "misslab_method.R", "misslab_classify.R"}, methodid.TasksBoth},
	}
	if got := len(cat.Methods()); got != len(want) {
		t.Errorf("%d methods, want %d", got, len(want))
	}
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, w := range want {
		m, ok := cat.Lookup(w.name)
		cfg, _ := cat.Config(w.name)
		switch {
		case !ok:
			t.Errorf("%s: missing", w.name)
		case m.Kind != w.kind || m.AcceptsMissing != w.missing || m.Tasks != w.tasks:
			t.Errorf("%s: kind %s accepts_missing %v tasks %q, want %s %v %q", w.name, m.Kind, m.AcceptsMissing, m.Tasks, w.kind, w.missing, w.tasks)
		case !hex.MatchString(m.ID):
			t.Errorf("%s: identity %q is not 64 hex digits", w.name, m.ID)
		case !slices.Equal(cfg.Files, w.files):
			t.Errorf("%s: files %v, want %v", w.name, cfg.Files, w.files)
		}
	}
}

// TestHGB: the sklearn learner fits on data with NA, predicts finite
// values that track a simple signal, repeats itself bit for bit under one
// seed, and rejects a setting it does not know by name.
func TestHGB(t *testing.T) {
	cat := installMethods(t, python(t), "")
	run := runner(t, cat)
	r := rand.New(rand.NewPCG(1, 2))
	X, y := linearData(r, 600, 4, 0.2)
	Xt, yt := linearData(r, 300, 4, 0.2)
	c := call(t, cat, "hgb", 1234567, learn.Settings{"max_iter": 60})
	p1, tm, err := run.FitPredict(ctx(t), c, X, y, Xt)
	if err != nil {
		t.Fatalf("FitPredict: %v", err)
	}
	if i := firstNonFinite(p1); i >= 0 || len(p1) != len(yt) {
		t.Fatalf("%d predictions for %d rows, first non-finite at %d", len(p1), len(yt), i)
	}
	got := r2(yt, p1)
	if got < 0.8 {
		t.Errorf("test R² = %.3f, want > 0.8 for y = x1 + noise", got)
	}
	t.Logf("hgb: test R² %.4f, fit %.3fs, predict %.3fs (the method's own times)", got, tm.FitSeconds, tm.PredictSeconds)
	if tm.FitSeconds <= 0 {
		t.Errorf("fit_seconds = %v, want the method's own positive measurement", tm.FitSeconds)
	}
	p2, _, err := run.FitPredict(ctx(t), c, X, y, Xt)
	if err != nil {
		t.Fatalf("second FitPredict: %v", err)
	}
	for i := range p1 {
		if math.Float64bits(p1[i]) != math.Float64bits(p2[i]) {
			t.Fatalf("row %d: %v then %v under the same seed", i, p1[i], p2[i])
		}
	}
	bad := call(t, cat, "hgb", 1, learn.Settings{"max_iterations": 5})
	_, _, err = run.FitPredict(ctx(t), bad, X, y, Xt)
	if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "max_iterations") {
		t.Errorf("unknown setting: err = %v, want ErrMethodFailed naming max_iterations", err)
	}
}

// TestImputers: each sklearn imputer returns observed entries bit for
// bit, fills every NA with a finite value, and keeps a column that has no
// observed training value (filled with 0).
func TestImputers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Python processes importing scikit-learn")
	}
	cat := installMethods(t, python(t), "")
	run := runner(t, cat)
	for _, tc := range []struct {
		name string
		s    learn.Settings
	}{
		{"sk_iterative", nil},
		{"sk_iterative", learn.Settings{"max_iter": 5, "sample_posterior": 1, "n_nearest_features": 2}},
		{"knn_impute", nil},
		{"knn_impute", learn.Settings{"n_neighbors": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			X, _ := linearData(r, 200, 4, 0.25)
			Xt, _ := linearData(r, 80, 4, 0.25)
			for i := range 200 {
				X.Set(i, 3, math.NaN()) // column 4 has no observed training value
			}
			Xi, Xti, _, err := run.Impute(ctx(t), call(t, cat, tc.name, 99, tc.s), X, Xt)
			if err != nil {
				t.Fatalf("Impute: %v", err)
			}
			checkImputed(t, "train", X, Xi, true)
			checkImputed(t, "test", Xt, Xti, false)
		})
	}
}

// checkImputed checks out against in: same shape, observed entries
// bit-identical, all finite; emptyZero: column 4 must be all 0.
func checkImputed(t *testing.T, what string, in, out *mat.Dense, emptyZero bool) {
	t.Helper()
	r, c := in.Dims()
	if r2, c2 := out.Dims(); r2 != r || c2 != c {
		t.Fatalf("%s: %d × %d returned for %d × %d", what, r2, c2, r, c)
	}
	for i := range r {
		for j := range c {
			a, b := in.At(i, j), out.At(i, j)
			switch {
			case math.IsNaN(b) || math.IsInf(b, 0):
				t.Fatalf("%s (%d,%d) = %v, want finite", what, i, j, b)
			case !math.IsNaN(a) && math.Float64bits(a) != math.Float64bits(b):
				t.Fatalf("%s (%d,%d): observed %v returned as %v", what, i, j, a, b)
			case emptyZero && j == 3 && b != 0:
				t.Fatalf("%s (%d,%d) = %v in the all-NA training column, want 0", what, i, j, b)
			}
		}
	}
}

// TestRpartMatchesTree is the cross-language check: on the quickstart's
// data (Experiment 1, every mechanism, several seeds and repetitions),
// rpart run by R through the protocol and misslab's tree/surrogate agree
// on every test prediction to 1e-9 relative.
func TestRpartMatchesTree(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 12 pairs of trees on 1000 rows")
	}
	cat := installMethods(t, "", rscript(t))
	run := runner(t, cat)
	tree, err := learn.New("tree/surrogate", nil, learn.Env{})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, mech := range []string{sim.MCAR, sim.MNAR, sim.Predictive} {
		for _, seed := range []uint64{1, 20240611} {
			for rep := range 2 {
				d := rpartGap(t, run, call(t, cat, "rpart", 5, nil), tree, mech, seed, rep)
				worst = max(worst, d)
			}
		}
	}
	t.Logf("largest relative difference between rpart and tree/surrogate: %.3g", worst)
}

// rpartGap fits both trees on one repetition and returns the largest
// relative difference of their test predictions (failing above 1e-9).
func rpartGap(t *testing.T, run learn.MethodRunner, c learn.MethodCall, tree *learn.Pipeline, mech string, seed uint64, rep int) float64 {
	t.Helper()
	s, err := sim.Defaults(sim.Quadratic) // d = 9, MCAR 20% on X1..X3, n = 1000 + 1000
	if err != nil {
		t.Fatal(err)
	}
	s.Mechanism = mech
	data, err := sim.Generate(s, seed, rep)
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := tree.Fit(ctx(t), data.Train.X, data.Train.Y, rand.New(rand.NewPCG(seed, uint64(rep))))
	if err != nil {
		t.Fatal(err)
	}
	want, err := fitted.Predict(ctx(t), data.Test.X)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := run.FitPredict(ctx(t), c, data.Train.X, data.Train.Y, data.Test.X)
	if err != nil {
		t.Fatalf("%s seed %d rep %d: rpart: %v", mech, seed, rep, err)
	}
	worst := 0.0
	for i := range want {
		d := math.Abs(got[i]-want[i]) / max(1, math.Abs(want[i]))
		if d > 1e-9 {
			t.Errorf("%s seed %d rep %d row %d: rpart %v, tree/surrogate %v", mech, seed, rep, i, got[i], want[i])
		}
		worst = max(worst, d)
	}
	return worst
}

// TestDocExample runs the Quick start of docs/METHODS.md as a user
// would: its Python learner and its methods file, copied from the page.
func TestDocExample(t *testing.T) {
	py := python(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "METHODS.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fenced(t, string(doc), "<!-- example-method: my_ridge.py")
	if err := os.WriteFile(filepath.Join(dir, "my_ridge.py"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "misslab_method.py", filepath.Join(dir, "misslab_method.py"))
	cat := loadMethods(t, dir, interpreters(fenced(t, string(doc), "<!-- example-methods-file"), py, ""))
	run := runner(t, cat)
	r := rand.New(rand.NewPCG(5, 6))
	X, y := linearData(r, 300, 3, 0.2)
	Xt, yt := linearData(r, 100, 3, 0.2)
	pred, _, err := run.FitPredict(ctx(t), call(t, cat, "ridge", 7, learn.Settings{"lambda": 0.5}), X, y, Xt)
	if err != nil {
		t.Fatalf("the documented example fails: %v", err)
	}
	got := r2(yt, pred)
	if got < 0.5 {
		t.Errorf("the documented ridge learner: test R² = %.3f, want > 0.5 for y = x1 + noise", got)
	}
	t.Logf("the documented ridge learner: test R² %.4f", got)
	_, _, err = run.FitPredict(ctx(t), call(t, cat, "ridge", 7, learn.Settings{"lamda": 1}), X, y, Xt)
	if !errors.Is(err, learn.ErrMethodFailed) || !strings.Contains(err.Error(), "lamda") {
		t.Errorf("a misspelt setting: err = %v, want ErrMethodFailed naming lamda", err)
	}
}

// fenced returns the body of the first fenced code block after marker.
func fenced(t *testing.T, doc, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, marker)
	if !ok {
		t.Fatalf("docs/METHODS.md has no %q", marker)
	}
	_, rest, _ = strings.Cut(rest, "```")
	_, rest, _ = strings.Cut(rest, "\n") // the info string
	body, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("docs/METHODS.md: the block after %q is not closed", marker)
	}
	return body
}

// TestImputersBeatTheMean: on equicorrelated Gaussian covariates (ρ =
// 0.7, 20% MCAR on the first three), each imputer's test-set RMSE
// against the true values is below mean imputation's, as a conditional
// estimate must be. For IterativeImputer the population value is known:
// the conditional sd given the 8 others, √(1 − 8ρ²/(1 + 7ρ)) ≈ 0.57
// (from ≈ 1 for the mean); it must come within 0.1 of it. This is the
// check that caught scikit-learn 1.2's keep_empty_features=True silently
// turning IterativeImputer into mean imputation.
func TestImputersBeatTheMean(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Python processes importing scikit-learn")
	}
	cat := installMethods(t, python(t), "")
	run := runner(t, cat)
	const rho, d = 0.7, 9
	r := rand.New(rand.NewPCG(7, 8))
	draw := func(n int) (X, full *mat.Dense) {
		full = mat.NewDense(n, d, nil)
		for i := range n {
			z := r.NormFloat64()
			for j := range d {
				full.Set(i, j, math.Sqrt(rho)*z+math.Sqrt(1-rho)*r.NormFloat64())
			}
		}
		X = mat.DenseCopyOf(full)
		for i := range n {
			for j := range 3 {
				if r.Float64() < 0.2 {
					X.Set(i, j, math.NaN())
				}
			}
		}
		return X, full
	}
	X, _ := draw(1000)
	Xt, full := draw(1000)
	rmse := func(imputed *mat.Dense) float64 {
		var s float64
		k := 0
		n, _ := Xt.Dims()
		for i := range n {
			for j := range 3 {
				if math.IsNaN(Xt.At(i, j)) {
					e := imputed.At(i, j) - full.At(i, j)
					s, k = s+e*e, k+1
				}
			}
		}
		return math.Sqrt(s / float64(k))
	}
	fill, err := learn.New("tree/mean", nil, learn.Env{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fill.Fit(ctx(t), X, make([]float64, 1000), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	meanImp, _, err := f.Impute(Xt)
	if err != nil {
		t.Fatal(err)
	}
	base := rmse(meanImp)
	want := math.Sqrt(1 - 8*rho*rho/(1+7*rho))
	for _, name := range []string{"sk_iterative", "knn_impute"} {
		_, Xti, _, err := run.Impute(ctx(t), call(t, cat, name, 3, nil), X, Xt)
		if err != nil {
			t.Fatal(err)
		}
		got := rmse(Xti)
		t.Logf("%s: RMSE %.3f, mean imputation %.3f, conditional sd %.3f", name, got, base, want)
		if got >= 0.9*base {
			t.Errorf("%s: RMSE %.3f is not below mean imputation's %.3f", name, got, base)
		}
		if name == "sk_iterative" && math.Abs(got-want) > 0.1 {
			t.Errorf("sk_iterative: RMSE %.3f, want the conditional sd %.3f ± 0.1", got, want)
		}
	}
}
