package linear_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/linear"
)

// probTol is the relative agreement required with R's probabilities.
const probTol = 1e-8

// golden is one case of testdata/make_golden_logistic.R.
type golden struct {
	X, Q      *mat.Dense
	y         []float64
	k         int
	prob      [][]float64 // prob[c][i]: R's probability of class c for test row i
	iter      float64     // glm's iterations (NaN for multinom)
	converged bool
	value     float64 // glm's deviance or multinom's value
}

func readGolden(t *testing.T, name string) golden {
	t.Helper()
	path := func(s string) string { return filepath.Join("testdata", "logit_"+name+"_"+s+".csv") }
	train, test, fit := learntest.ReadCSV(t, path("train")), learntest.ReadCSV(t, path("test")), learntest.ReadCSV(t, path("fit"))
	g := golden{
		X: train.Matrix(t, train.XNames()), y: train.Column(t, "y"), Q: test.Matrix(t, test.XNames()),
		k: int(fit.Num(t, 0, "k")), iter: fit.Num(t, 0, "iter"), converged: fit.Num(t, 0, "converged") == 1,
		value: fit.Num(t, 0, "value"),
	}
	for c := range g.k {
		g.prob = append(g.prob, test.Column(t, fmt.Sprintf("prob_c%d", c)))
	}
	return g
}

// relErr is |got − want| / |want| (|got − want| when want is 0).
func relErr(got, want float64) float64 {
	d := math.Abs(got - want)
	if want != 0 {
		d /= math.Abs(want)
	}
	return d
}

// TestGoldenLogistic compares every class probability with glm's
// (binomial cases) or multinom's (three or more classes) to 1e-8
// relative, and the iteration count, convergence flag and deviance (or
// multinom's value) with R's. The cases: small and ~1000-row data, a
// perfectly separable binary case (glm does not converge in 25
// iterations and fits probabilities numerically 0 and 1), a
// rank-deficient design, an out-of-range column at 999999, separable and
// badly scaled multinomial data, and a class absent from training.
func TestGoldenLogistic(t *testing.T) {
	cases := []string{"bin_small", "bin_meanimp_p12", "bin_separable", "bin_collinear", "bin_oor",
		"multi3_small", "multi4_meanimp_p12", "multi3_separable", "multi3_oor", "multi4_absent"}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			g := readGolden(t, name)
			m, err := linear.Logistic{}.FitClass(context.Background(), g.X, g.y, g.k, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if !math.IsNaN(g.iter) && m.Iterations() != int(g.iter) {
				t.Errorf("%d IRLS iterations, glm %v", m.Iterations(), g.iter)
			}
			if m.Converged() != g.converged {
				t.Errorf("converged = %v, R %v", m.Converged(), g.converged)
			}
			if e := relErr(m.Value(), g.value); e > probTol {
				t.Errorf("value %.17g, R %.17g (relative %.2g)", m.Value(), g.value, e)
			}
			P, err := m.PredictProba(context.Background(), g.Q)
			if err != nil {
				t.Fatal(err)
			}
			worst, bad := 0.0, 0
			for c, want := range g.prob {
				for i, w := range want {
					e := relErr(P.At(i, c), w)
					worst = math.Max(worst, e)
					if e > probTol {
						if bad++; bad <= 5 {
							t.Errorf("row %d class %d: %.17g, R %.17g (relative %.2g)", i, c, P.At(i, c), w, e)
						}
					}
				}
			}
			t.Logf("worst relative difference from R: %.3g", worst)
		})
	}
}
