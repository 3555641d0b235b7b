package boost

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// classGolden is one fixture written by testdata/make_golden_class.py.
// Predictions[r] holds XGBoost's test-set probabilities after r rounds:
// one per row for two classes (P(Y = 1)), k per row otherwise.
type classGolden struct {
	golden
	K           int                        `json:"k"`
	Predictions map[string]json.RawMessage `json:"predictions"`
	Margins     json.RawMessage            `json:"margins"`
}

func loadClassGolden(t *testing.T, path string) *classGolden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g classGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &g
}

func classGoldenFiles(t *testing.T) []string {
	files, err := filepath.Glob("testdata/class_*.json")
	if err != nil || len(files) < 6 {
		t.Fatalf("classification fixtures missing (%v): run testdata/make_golden_class.py", err)
	}
	return files
}

// want returns XGBoost's values in raw as an n × k matrix: for two
// classes raw holds P(Y = 1) per row and the matrix 1 − p (in float32,
// as predict_proba) and p; with k = 0, raw holds one margin per group.
func (g *classGolden) want(t *testing.T, raw json.RawMessage, k int) *mat.Dense {
	t.Helper()
	n := len(g.XTest)
	if k == 2 || (k == 0 && g.K == 2) {
		var p []float64
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			return mat.NewDense(n, 1, p)
		}
		out := mat.NewDense(n, 2, nil)
		for i, v := range p {
			out.Set(i, 0, float64(1-float32(v)))
			out.Set(i, 1, v)
		}
		return out
	}
	var rows [][]float64
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	out := mat.NewDense(n, len(rows[0]), nil)
	for i, r := range rows {
		out.SetRow(i, r)
	}
	return out
}

// fit fits the fixture's data with its parameters and r rounds, handing
// every tree to keep if not nil.
func (g *classGolden) fit(t *testing.T, r int, keep func(*tree)) *ClassModel {
	t.Helper()
	y := g.YTrain
	ds, err := newDataset(dense(g.XTrain), y)
	if err != nil {
		t.Fatal(err)
	}
	p := g.params(r)
	base, err := baseMargin(p.BaseScore, g.K)
	if err != nil {
		t.Fatal(err)
	}
	m, err := fitClass(context.Background(), ds, g.K, base, p, fitOptions{keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// upTo returns m with only its first r rounds of trees, like XGBoost's
// iteration_range=(0, r).
func (m *ClassModel) upTo(r int) *ClassModel {
	out := &ClassModel{k: m.k}
	for _, g := range m.groups {
		t := min(r, len(g.roots))
		end := len(g.nodes)
		if t < len(g.roots) {
			end = int(g.roots[t])
		}
		out.groups = append(out.groups, &Model{d: g.d, base: g.base, nodes: g.nodes[:end],
			roots: g.roots[:t], depths: g.depths[:t]})
	}
	return out
}

// diffBits counts the entries of got that differ from want in any bit
// and returns the largest absolute difference.
func diffBits(got, want *mat.Dense) (int, float64) {
	n, k := want.Dims()
	bad, worst := 0, 0.0
	for i := range n {
		for j := range k {
			a, b := got.At(i, j), want.At(i, j)
			if math.Float64bits(a) != math.Float64bits(b) {
				bad++
				worst = math.Max(worst, math.Abs(a-b))
			}
		}
	}
	return bad, worst
}

// TestClassGoldenProba checks the test-set probabilities after every
// recorded round count, and the margins after the last, against XGBoost
// 1.7.4's bit for bit.
func TestClassGoldenProba(t *testing.T) {
	for _, path := range classGoldenFiles(t) {
		g := loadClassGolden(t, path)
		last := g.Rounds[len(g.Rounds)-1]
		m := g.fit(t, last, nil)
		Xte := dense(g.XTest)
		for _, r := range g.Rounds {
			t.Run(fmt.Sprintf("%s/rounds=%d", g.Name, r), func(t *testing.T) {
				got, err := m.upTo(r).PredictProba(context.Background(), Xte)
				if err != nil {
					t.Fatal(err)
				}
				if bad, worst := diffBits(got, g.want(t, g.Predictions[fmt.Sprint(r)], g.K)); bad > 0 {
					t.Errorf("%d of %d probabilities differ from xgboost's (max |Δ| = %g)", bad, len(got.RawMatrix().Data), worst)
				}
			})
		}
		t.Run(g.Name+"/margins", func(t *testing.T) {
			got := m.margins(t, Xte)
			if bad, worst := diffBits(got, g.want(t, g.Margins, 0)); bad > 0 {
				t.Errorf("%d margins differ from xgboost's (max |Δ| = %g)", bad, worst)
			}
		})
	}
}

// margins returns the n × groups float32 margins of X's rows, widened.
func (m *ClassModel) margins(t *testing.T, X *mat.Dense) *mat.Dense {
	t.Helper()
	n, d := X.Dims()
	x, err := features(X, n, d)
	if err != nil {
		t.Fatal(err)
	}
	out := mat.NewDense(n, len(m.groups), nil)
	for c, gm := range m.groups {
		s := make([]float32, 1)
		for i := range n {
			gm.predictBlock(x[i*d:(i+1)*d], s)
			out.Set(i, c, float64(s[0]))
		}
	}
	return out
}

// TestClassGoldenTrees checks every tree against XGBoost's, in XGBoost's
// order (round by round, class by class): same shape, split features,
// float32 thresholds and default directions exactly; leaf values, node
// weights and loss changes to float32 rounding, hessian sums as the
// float32 XGBoost stores.
func TestClassGoldenTrees(t *testing.T) {
	for _, path := range classGoldenFiles(t) {
		g := loadClassGolden(t, path)
		t.Run(g.Name, func(t *testing.T) {
			var trees []tree
			g.fit(t, g.Rounds[len(g.Rounds)-1], func(t *tree) { trees = append(trees, *t) })
			if len(trees) != len(g.Trees) {
				t.Fatalf("%d trees, xgboost %d", len(trees), len(g.Trees))
			}
			for k, want := range g.Trees {
				if err := sameTree(&trees[k], &want, 0, 0); err != nil {
					t.Fatalf("tree %d: %v", k, err)
				}
			}
		})
	}
}
