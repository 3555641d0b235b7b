package tree

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// classGoldenSets are the data sets of testdata/make_class_golden.R with
// their number of classes.
// full marks the sets also fitted with the "full" controls.
var classGoldenSets = []struct {
	name string
	k    int
	full bool
}{{"bsmall", 2, false}, {"bfig3", 2, false}, {"m3grid", 3, false}, {"m4ties", 4, false},
	{"m4apr", 4, true}, {"absent", 4, false}, {"halves", 2, false}}

// classGoldenControls are the script's rpart.control settings.
var classGoldenControls = map[string]Params{
	"paper": PaperDefaults(),
	"rpart": RpartDefaults(),
	"cp":    {Strategy: Surrogate, MinSplit: 10, MinBucket: 3, CP: 0.005, MaxDepth: 30, MaxSurrogate: 5},
	"depth": {Strategy: Surrogate, MinSplit: 6, MinBucket: 2, CP: 0, MaxDepth: 4, MaxSurrogate: 5},
}

// classGoldenFull are the script's "full" controls: fully grown.
var classGoldenFull = Params{Strategy: Surrogate, MinSplit: 2, MinBucket: 1, CP: 0, MaxDepth: 30, MaxSurrogate: 5}

// classControls returns the controls set is fitted with, by name.
func classControls(full bool) map[string]Params {
	out := maps.Clone(classGoldenControls)
	if full {
		out["full"] = classGoldenFull
	}
	return out
}

// TestClassGoldenRpart fits FitClass on the fixtures of
// testdata/make_class_golden.R and checks it against rpart 4.1.19's
// method "class", node by node and bit for bit: split variable and
// threshold, n, class counts, predicted class, dev, improve and yprob
// exactly, complexity to 1e-12; the surrogate lists (variable, threshold,
// direction exactly, agree and adj to 1e-12); and predict(type = "prob")
// exactly on a test set with NA and on training rows.
func TestClassGoldenRpart(t *testing.T) {
	for _, set := range classGoldenSets {
		for cname, p := range classControls(set.full) {
			t.Run(set.name+"/"+cname, func(t *testing.T) {
				dir := filepath.Join("testdata", "golden_class")
				train := learntest.ReadCSV(t, filepath.Join(dir, set.name+"_train.csv"))
				test := learntest.ReadCSV(t, filepath.Join(dir, set.name+"_test.csv"))
				xn := train.XNames()
				m, err := FitClass(context.Background(), train.Matrix(t, xn), train.Column(t, "y"), set.k, p, newRNG(1))
				if err != nil {
					t.Fatal(err)
				}
				stem := filepath.Join(dir, set.name+"_"+cname)
				checkClassNodes(t, m, learntest.ReadCSV(t, stem+"_nodes.csv"))
				checkGoldenSurrogates(t, classByPath(m), learntest.ReadCSV(t, stem+"_surrogates.csv"))
				want := learntest.ReadCSV(t, stem+"_pred.csv")
				checkClassPred(t, m, test.Matrix(t, xn), want, "p", "test")
				head := train.Matrix(t, xn).Slice(0, len(want.Rows), 0, len(xn)).(*mat.Dense)
				checkClassPred(t, m, head, want, "train_p", "train")
			})
		}
	}
}

// classByPath indexes a class tree's nodes by canonical path (byPath).
func classByPath(m *ClassModel) map[string]NodeInfo {
	out := map[string]NodeInfo{}
	for p, nd := range classNodesByPath(m) {
		out[p] = nd.NodeInfo
	}
	return out
}

// classNodesByPath is classByPath keeping the class columns.
func classNodesByPath(m *ClassModel) map[string]ClassNodeInfo {
	nodes := m.Nodes()
	base := make([]NodeInfo, len(nodes))
	for i, nd := range nodes {
		base[i] = nd.NodeInfo
	}
	out := map[string]ClassNodeInfo{}
	for i, p := range nodePaths(base) {
		out[p] = nodes[i]
	}
	return out
}

// field is one number of a node compared with rpart's.
type field struct {
	name      string
	got, want float64
}

func checkClassNodes(t *testing.T, m *ClassModel, want learntest.Table) {
	t.Helper()
	got := classNodesByPath(m)
	if len(got) != len(want.Rows) {
		t.Errorf("tree has %d nodes, rpart %d", len(got), len(want.Rows))
	}
	for i := range want.Rows {
		path := want.Str(t, i, "path")
		g, ok := got[path]
		if !ok {
			t.Errorf("node %s: missing in Go tree", path)
			continue
		}
		msg := fmt.Sprintf("node %s", path)
		v := int(want.Num(t, i, "var"))
		if g.Feature+1 != v {
			t.Errorf("%s: variable %d, rpart x%d", msg, g.Feature+1, v)
			continue
		}
		exact := []field{{"n", float64(g.N), want.Num(t, i, "n")}, {"yval", g.Value, want.Num(t, i, "yval")},
			{"dev", g.Deviance, want.Num(t, i, "dev")}}
		if v != 0 {
			exact = append(exact, field{"threshold", g.Threshold, want.Num(t, i, "threshold")},
				field{"improve", g.Improve, want.Num(t, i, "improve")})
		}
		for j := 1; ; j++ {
			col := strconv.Itoa(j)
			if _, ok := want.Cols["n"+col]; !ok {
				break
			}
			exact = append(exact, field{"n" + col, g.Counts[j-1], want.Num(t, i, "n"+col)},
				field{"p" + col, g.Prob[j-1], want.Num(t, i, "p"+col)})
		}
		for _, c := range exact {
			if c.got != c.want {
				t.Errorf("%s: %s %.17g, rpart %.17g", msg, c.name, c.got, c.want)
			}
		}
		if w := want.Num(t, i, "complexity"); !close(g.CP, w, 1e-12) {
			t.Errorf("%s: complexity %.17g, rpart %.17g", msg, g.CP, w)
		}
	}
}

// checkClassPred compares PredictProba on X with the columns prefix1,
// prefix2, … of want, exactly.
func checkClassPred(t *testing.T, m *ClassModel, X *mat.Dense, want learntest.Table, prefix, what string) {
	t.Helper()
	got, err := m.PredictProba(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	bad, maxDiff := 0, 0.0
	for i := range want.Rows {
		for j := 1; ; j++ {
			col := prefix + strconv.Itoa(j)
			if _, ok := want.Cols[col]; !ok {
				break
			}
			g, w := got.At(i, j-1), want.Num(t, i, col)
			maxDiff = math.Max(maxDiff, math.Abs(g-w))
			if g != w {
				if bad < 5 {
					t.Errorf("%s row %d: P(class %d) %.17g, rpart %.17g", what, i, j-1, g, w)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d probabilities differ from rpart (max abs difference %.3g)", what, bad, maxDiff)
	}
}
