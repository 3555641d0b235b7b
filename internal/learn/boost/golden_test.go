package boost

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// golden is one fixture written by testdata/make_golden.py: data, XGBoost
// 1.7.4 parameters, its trees (JSON model arrays) and test predictions.
type golden struct {
	Name   string `json:"name"`
	Params struct {
		Eta            float64 `json:"eta"`
		MaxDepth       int     `json:"max_depth"`
		Lambda         float64 `json:"reg_lambda"`
		Alpha          float64 `json:"reg_alpha"`
		Gamma          float64 `json:"gamma"`
		MinChildWeight float64 `json:"min_child_weight"`
		BaseScore      float64 `json:"base_score"`
	} `json:"params"`
	XTrain      [][]*float64         `json:"x_train"`
	YTrain      []float64            `json:"y_train"`
	XTest       [][]*float64         `json:"x_test"`
	Rounds      []int                `json:"rounds"`
	Predictions map[string][]float64 `json:"predictions"`
	Trees       []xgbTree            `json:"trees"`
}

// xgbTree holds the node arrays of one tree of an XGBoost JSON model.
// For leaves, split_conditions holds the leaf value.
type xgbTree struct {
	Left    []int32   `json:"left_children"`
	Right   []int32   `json:"right_children"`
	Feature []int32   `json:"split_indices"`
	Cond    []float64 `json:"split_conditions"`
	DefLeft []int     `json:"default_left"`
	Weight  []float64 `json:"base_weights"`
	Loss    []float64 `json:"loss_changes"`
	Hessian []float64 `json:"sum_hessian"`
}

func loadGolden(t *testing.T, path string) *golden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &g
}

// dense converts rows with null = NA into a matrix with NaN.
func dense(rows [][]*float64) *mat.Dense {
	X := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		for j, v := range r {
			if v == nil {
				X.Set(i, j, math.NaN())
			} else {
				X.Set(i, j, *v)
			}
		}
	}
	return X
}

func (g *golden) params(rounds int) Params {
	p := DefaultParams()
	p.Rounds, p.Eta, p.MaxDepth = rounds, g.Params.Eta, g.Params.MaxDepth
	p.Lambda, p.Alpha, p.Gamma = g.Params.Lambda, g.Params.Alpha, g.Params.Gamma
	p.MinChildWeight, p.BaseScore = g.Params.MinChildWeight, g.Params.BaseScore
	return p
}

func goldenFiles(t *testing.T) []string {
	files, err := filepath.Glob("testdata/golden_*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("golden fixtures missing (%v): run testdata/make_golden.py", err)
	}
	return files
}

// TestGoldenTrees checks every tree against XGBoost's: same shape, split
// features, float32 thresholds and default directions exactly; leaf
// values, node weights and loss changes to float32 rounding.
func TestGoldenTrees(t *testing.T) {
	for _, path := range goldenFiles(t) {
		g := loadGolden(t, path)
		t.Run(g.Name, func(t *testing.T) {
			var trees []tree
			keep := func(t *tree) { trees = append(trees, *t) }
			_, err := fit(context.Background(), dense(g.XTrain), g.YTrain, g.params(len(g.Trees)), rand.New(rand.NewPCG(1, 2)), keep)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range g.Trees {
				if err := sameTree(&trees[k], &want, 0, 0); err != nil {
					t.Fatalf("tree %d: %v", k, err)
				}
			}
		})
	}
}

// sameTree compares our node i with XGBoost's node j recursively.
func sameTree(t *tree, x *xgbTree, i, j int32) error {
	nd := &t.nodes[i]
	if got, want := nd.isLeaf(), x.Left[j] < 0; got != want {
		return fmt.Errorf("node %d: leaf %v, xgboost %v", j, got, want)
	}
	if !close32(nd.weight, x.Weight[j]) || float32(nd.hess) != float32(x.Hessian[j]) {
		return fmt.Errorf("node %d: weight %v hessian %v, xgboost %v %v", j, nd.weight, nd.hess, x.Weight[j], x.Hessian[j])
	}
	if nd.isLeaf() {
		if !close32(nd.value, x.Cond[j]) {
			return fmt.Errorf("leaf %d: value %v, xgboost %v", j, nd.value, x.Cond[j])
		}
		return nil
	}
	if nd.feat != x.Feature[j] || nd.thresh != float32(x.Cond[j]) || nd.defLeft != (x.DefLeft[j] != 0) {
		return fmt.Errorf("node %d: split f%d < %v default-left %v, xgboost f%d < %v default-left %v",
			j, nd.feat, nd.thresh, nd.defLeft, x.Feature[j], float32(x.Cond[j]), x.DefLeft[j] != 0)
	}
	if !close32(nd.loss, x.Loss[j]) {
		return fmt.Errorf("node %d: loss change %v, xgboost %v", j, nd.loss, x.Loss[j])
	}
	if err := sameTree(t, x, nd.left, x.Left[j]); err != nil {
		return err
	}
	return sameTree(t, x, nd.right, x.Right[j])
}

// close32 reports whether a float32 agrees with XGBoost's printed float32
// up to a few units in the last place.
func close32(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 4*math.Abs(want)*0x1p-24+1e-30
}

// TestGoldenPredictions checks test-set predictions after 1, 2, 5 and 20
// rounds against XGBoost's within 1e-5.
func TestGoldenPredictions(t *testing.T) {
	for _, path := range goldenFiles(t) {
		g := loadGolden(t, path)
		for _, r := range g.Rounds {
			t.Run(fmt.Sprintf("%s/rounds=%d", g.Name, r), func(t *testing.T) {
				m, err := Fit(context.Background(), dense(g.XTrain), g.YTrain, g.params(r), rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.Predict(context.Background(), dense(g.XTest))
				if err != nil {
					t.Fatal(err)
				}
				want := g.Predictions[fmt.Sprint(r)]
				worst := 0.0
				for i := range want {
					worst = math.Max(worst, math.Abs(got[i]-want[i]))
				}
				if worst > 1e-5 {
					t.Errorf("max |prediction − xgboost| = %g > 1e-5", worst)
				}
				t.Logf("max |prediction − xgboost| = %g", worst)
			})
		}
	}
}
