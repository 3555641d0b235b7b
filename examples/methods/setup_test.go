package adapters_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methods"
)

// requireEnv makes a missing interpreter a failure instead of a skip (CI).
const requireEnv = "MISSLAB_REQUIRE_METHODS"

// need skips the test (or fails it under MISSLAB_REQUIRE_METHODS=1) when
// ok is false.
func need(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s is missing and %s=1 (scripts/install-methods-deps.sh installs it)", what, requireEnv)
	}
	t.Skipf("%s is missing (scripts/install-methods-deps.sh installs it; set %s=1 to fail instead)", what, requireEnv)
}

// probe reports whether prog runs args successfully within a minute.
func probe(prog string, args ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, prog, args...).Run() == nil
}

// python returns the first of /usr/bin/python3 and the python3 on PATH
// that imports numpy and sklearn (skipping or failing without one).
func python(t *testing.T) string {
	t.Helper()
	cands := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		if probe(c, "-c", "import numpy, sklearn") {
			return c
		}
	}
	need(t, false, "a python3 with numpy and scikit-learn")
	return ""
}

// rscript returns the Rscript on PATH if it loads rpart (skipping or
// failing otherwise).
func rscript(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("Rscript")
	need(t, err == nil && probe(p, "-e", "suppressPackageStartupMessages(library(rpart))"), "Rscript with rpart")
	return p
}

// installMethods copies the scripts of this directory into a temporary
// directory with methods.hcl rewritten to run the given interpreters
// (the committed file says python3 and Rscript), and loads it.
func installMethods(t *testing.T, py, rs string) *methods.Catalog {
	t.Helper()
	dir := t.TempDir()
	for _, pat := range []string{"*.py", "*.R"} {
		paths, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			copyFile(t, p, filepath.Join(dir, p))
		}
	}
	src, err := os.ReadFile("methods.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return loadMethods(t, dir, interpreters(string(src), py, rs))
}

// interpreters rewrites the commands of a methods file to run py and rs
// (left alone when empty) instead of python3 and Rscript.
func interpreters(src, py, rs string) string {
	if py != "" {
		src = strings.ReplaceAll(src, `["python3",`, `["`+py+`",`)
	}
	if rs != "" {
		src = strings.ReplaceAll(src, `["Rscript",`, `["`+rs+`",`)
	}
	return src
}

// loadMethods writes src as dir/methods.hcl and loads it.
func loadMethods(t *testing.T, dir, src string) *methods.Catalog {
	t.Helper()
	path := filepath.Join(dir, "methods.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := methods.Load(path)
	if err != nil {
		t.Fatalf("methods.Load: %v", err)
	}
	return cat
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runner returns the catalog's runner for one sweep, closed at cleanup.
func runner(t *testing.T, cat *methods.Catalog) learn.MethodRunner {
	t.Helper()
	r, err := methods.NewRunner(cat, methods.Options{TempDir: t.TempDir(), MaxProcs: 2,
		Logger: hclog.New(&hclog.LoggerOptions{Output: hclog.DefaultOutput, Level: hclog.Warn})})
	if err != nil {
		t.Fatalf("methods.NewRunner: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r.ForSweep("adapters-test")
}

// call returns the call of the catalog's method name.
func call(t *testing.T, cat *methods.Catalog, name string, seed int64, s learn.Settings) learn.MethodCall {
	t.Helper()
	m, ok := cat.Lookup(name)
	if !ok {
		t.Fatalf("method %q is not in the catalog", name)
	}
	return learn.MethodCall{Method: m, Settings: s, Seed: seed, Threads: 1}
}

// ctx returns a context that ends with the test, or after a minute.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// linearData draws n rows of d N(0,1) covariates with y = x1 + N(0, 0.1²)
// and each entry of columns 2..d NA with probability rate (x1, the
// signal, stays observed so that a good learner's R² is near 1).
func linearData(r *rand.Rand, n, d int, rate float64) (*mat.Dense, []float64) {
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			X.Set(i, j, r.NormFloat64())
		}
		y[i] = X.At(i, 0) + 0.1*r.NormFloat64()
		for j := 1; j < d; j++ {
			if r.Float64() < rate {
				X.Set(i, j, math.NaN())
			}
		}
	}
	return X, y
}

// r2 is the coefficient of determination of pred for y.
func r2(y, pred []float64) float64 {
	var mean, ssr, sst float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for i, v := range y {
		ssr += (v - pred[i]) * (v - pred[i])
		sst += (v - mean) * (v - mean)
	}
	return 1 - ssr/sst
}

// allFinite reports the first non-finite value's index, or -1.
func firstNonFinite(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}
