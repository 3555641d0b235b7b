package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/misslab/misslab/internal/learn/internal/learntest"

	"gonum.org/v1/gonum/mat"
)

// TestGoldenRpart fits the surrogate tree on the fixtures made by
// testdata/make_golden.R and checks it against rpart 4.1.19: the same
// nodes (variable, threshold, n, mean, deviance, complexity, improve),
// the same surrogate lists (variable, threshold, direction, agree, adj)
// and the same predictions on a test set with NA and on the training rows,
// under the paper's controls, rpart's defaults, and a deep tree (minsplit
// 10, minbucket 3, cp 0.005) where cost-complexity collapsing is at work.
func TestGoldenRpart(t *testing.T) {
	deep := Params{Strategy: Surrogate, MinSplit: 10, MinBucket: 3, CP: 0.005, MaxDepth: 30, MaxSurrogate: 5}
	controls := map[string]Params{"paper": PaperDefaults(), "rpart": RpartDefaults(), "cp": deep}
	for _, data := range []string{"corr", "censor", "ties", "exp1", "sparse", "halves"} {
		for cname, p := range controls {
			t.Run(data+"/"+cname, func(t *testing.T) {
				dir := filepath.Join("testdata", "golden")
				train := learntest.ReadCSV(t, filepath.Join(dir, data+"_train.csv"))
				test := learntest.ReadCSV(t, filepath.Join(dir, data+"_test.csv"))
				var xn []string
				for j := 1; ; j++ {
					if _, ok := train.Cols["x"+strconv.Itoa(j)]; !ok {
						break
					}
					xn = append(xn, "x"+strconv.Itoa(j))
				}
				tr, err := Fit(context.Background(), train.Matrix(t, xn), train.Column(t, "y"), p, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				stem := filepath.Join(dir, data+"_"+cname)
				checkGoldenNodes(t, tr, learntest.ReadCSV(t, stem+"_nodes.csv"))
				checkGoldenSurrogates(t, byPath(tr), learntest.ReadCSV(t, stem+"_surrogates.csv"))
				want := learntest.ReadCSV(t, stem+"_pred.csv")
				checkGoldenPred(t, tr, test.Matrix(t, xn), want.Column(t, "pred"), "test")
				head := train.Matrix(t, xn).Slice(0, len(want.Rows), 0, len(xn)).(*mat.Dense)
				checkGoldenPred(t, tr, head, want.Column(t, "train_pred"), "train")
			})
		}
	}
}

// byPath indexes the tree's nodes by canonical path: "r" for the root,
// then 0 for the x < threshold child and 1 for the other.
func byPath(tr *Model) map[string]NodeInfo { return pathIndex(tr.Nodes()) }

// pathIndex indexes nodes (in Nodes' layout) by canonical path.
func pathIndex(nodes []NodeInfo) map[string]NodeInfo {
	out := map[string]NodeInfo{}
	for i, p := range nodePaths(nodes) {
		out[p] = nodes[i]
	}
	return out
}

// nodePaths returns the canonical path of every node (in Nodes' layout).
func nodePaths(nodes []NodeInfo) []string {
	out := make([]string, len(nodes))
	var walk func(i int, p string)
	walk = func(i int, p string) {
		out[i] = p
		if !nodes[i].Leaf {
			walk(nodes[i].Left, p+"0")
			walk(nodes[i].Right, p+"1")
		}
	}
	walk(0, "r")
	return out
}

func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func checkGoldenNodes(t *testing.T, tr *Model, want learntest.Table) {
	t.Helper()
	got := byPath(tr)
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
		v := int(want.Num(t, i, "var"))
		msg := fmt.Sprintf("node %s", path)
		if g.Feature+1 != v {
			t.Errorf("%s: variable %d, rpart x%d", msg, g.Feature+1, v)
			continue
		}
		if g.N != int(want.Num(t, i, "n")) {
			t.Errorf("%s: n %d, rpart %v", msg, g.N, want.Num(t, i, "n"))
		}
		for _, c := range []struct {
			name     string
			got, tol float64
		}{{"yval", g.Value, 1e-12}, {"dev", g.Deviance, 1e-9}, {"complexity", g.CP, 1e-9}} {
			if w := want.Num(t, i, c.name); !close(c.got, w, c.tol) {
				t.Errorf("%s: %s %.15g, rpart %.15g", msg, c.name, c.got, w)
			}
		}
		if v == 0 {
			continue
		}
		if w := want.Num(t, i, "threshold"); !close(g.Threshold, w, 1e-12) {
			t.Errorf("%s: threshold %.15g, rpart %.15g", msg, g.Threshold, w)
		}
		if w := want.Num(t, i, "improve"); !close(g.Improve, w, 1e-9) {
			t.Errorf("%s: improve %.15g, rpart %.15g", msg, g.Improve, w)
		}
	}
}

func checkGoldenSurrogates(t *testing.T, got map[string]NodeInfo, want learntest.Table) {
	t.Helper()
	count := map[string]int{}
	for i := range want.Rows {
		path := want.Str(t, i, "path")
		rank := int(want.Num(t, i, "rank"))
		count[path]++
		sur := got[path].Surrogates
		if rank > len(sur) {
			t.Errorf("node %s: %d surrogates, rpart has rank %d", path, len(sur), rank)
			continue
		}
		s := sur[rank-1]
		msg := fmt.Sprintf("node %s surrogate %d", path, rank)
		if s.Feature+1 != int(want.Num(t, i, "var")) {
			t.Errorf("%s: variable x%d, rpart x%v", msg, s.Feature+1, want.Num(t, i, "var"))
			continue
		}
		if w := want.Num(t, i, "threshold"); !close(s.Threshold, w, 1e-12) {
			t.Errorf("%s: threshold %.15g, rpart %.15g", msg, s.Threshold, w)
		}
		if w := want.Num(t, i, "lowleft") == 1; s.LowLeft != w {
			t.Errorf("%s: lowLeft %v, rpart %v", msg, s.LowLeft, w)
		}
		if w := want.Num(t, i, "agree"); !close(s.Agree, w, 1e-12) {
			t.Errorf("%s: agree %.15g, rpart %.15g", msg, s.Agree, w)
		}
		if w := want.Num(t, i, "adj"); !close(s.Adj, w, 1e-12) {
			t.Errorf("%s: adj %.15g, rpart %.15g", msg, s.Adj, w)
		}
	}
	for path, n := range got {
		if len(n.Surrogates) != count[path] {
			t.Errorf("node %s: %d surrogates, rpart %d", path, len(n.Surrogates), count[path])
		}
	}
}

func checkGoldenPred(t *testing.T, tr *Model, X *mat.Dense, want []float64, what string) {
	t.Helper()
	got, err := tr.Predict(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range want {
		if !close(got[i], want[i], 1e-12) {
			if bad < 5 {
				t.Errorf("%s row %d: prediction %.15g, rpart %.15g", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d predictions differ from rpart", what, bad, len(want))
	}
}
