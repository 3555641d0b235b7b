package impute

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestRidgeGolden compares fitRidge with scikit-learn 1.2.1's
// BayesianRidge() fitted alone (testdata/bayes_ridge.json, written by
// make_iterative_golden.py): a regular design, n < p (interpolation,
// α at its ceiling), a constant predictor, a constant target, a single
// row and a large-scale design. Coefficients and intercept to 1e-8
// relative (of max(1, |value|)), α and λ to 1e-6, iterations exactly.
func TestRidgeGolden(t *testing.T) {
	var golden struct {
		Fits []struct {
			Name          string
			X             [][]float64
			Y, Coef       []float64
			Intercept     float64
			Alpha, Lambda float64
			NIter         int `json:"n_iter"`
		}
	}
	raw, err := os.ReadFile("testdata/bayes_ridge.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for _, g := range golden.Fits {
		t.Run(g.Name, func(t *testing.T) {
			n, p := len(g.X), len(g.X[0])
			rows := make([]int, n)
			cols := make([][]float64, p)
			for i := range rows {
				rows[i] = i
			}
			for a := range p {
				cols[a] = make([]float64, n)
				for i := range n {
					cols[a][i] = g.X[i][a]
				}
			}
			des := &ridgeDesign{Cols: make([][]float64, p), Mean: make([]float64, p)}
			for a := range p {
				des.Cols[a], des.Mean[a] = centred(cols[a], rows)
			}
			des.Y, des.YMean = centred(g.Y, rows)
			m := fitRidge(des)
			if m.Iter != g.NIter {
				t.Errorf("iterations %d, scikit-learn %d", m.Iter, g.NIter)
			}
			for a := range p {
				if !near(m.Coef[a], g.Coef[a], 1e-8) {
					t.Errorf("coef[%d] = %.17g, scikit-learn %.17g", a, m.Coef[a], g.Coef[a])
				}
			}
			if !near(m.Intercept, g.Intercept, 1e-8) {
				t.Errorf("intercept = %.17g, scikit-learn %.17g", m.Intercept, g.Intercept)
			}
			if math.Abs(m.Alpha-g.Alpha) > 1e-6*g.Alpha || math.Abs(m.Lambda-g.Lambda) > 1e-6*g.Lambda {
				t.Errorf("alpha, lambda = %.10g, %.10g; scikit-learn %.10g, %.10g", m.Alpha, m.Lambda, g.Alpha, g.Lambda)
			}
		})
	}
}
