package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/tree"
)

// stepData returns n rows of x ~ U(0,1) with y = 1{x > 0.5} and an NA in
// x for every fifth row.
func stepData(n int) (*mat.Dense, []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		x := r.Float64()
		if x > 0.5 {
			y[i] = 1
		}
		if i%5 == 0 {
			x = math.NaN()
		}
		X.Set(i, 0, x)
	}
	return X, y
}

// TestTreeMinsplitFollowsMinbucket checks the rpart rule wired into the
// tree family: with minbucket 7 alone, minsplit becomes 21, so a 60-row
// node splits; an explicit minsplit of 90 forbids it.
func TestTreeMinsplitFollowsMinbucket(t *testing.T) {
	X, y := stepData(60)
	cases := []struct {
		s      Settings
		splits bool
	}{
		{Settings{"minbucket": 7}, true},
		{Settings{"minbucket": 7, "minsplit": 90}, false},
		{nil, false}, // the paper's minbucket 30 → minsplit 90 > 60 rows
		{Settings{"rpart_defaults": 1}, true},
	}
	for _, c := range cases {
		p, err := New("tree/mean", c.s, Env{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Fit(context.Background(), X, y, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		pred, err := f.Predict(context.Background(), mat.NewDense(2, 1, []float64{0.1, 0.9}))
		if err != nil {
			t.Fatal(err)
		}
		if got := pred[0] != pred[1]; got != c.splits {
			t.Errorf("settings %v: predictions %v, split = %v, want %v", c.s, pred, got, c.splits)
		}
	}
}

// TestNativeFamiliesPredictWithNA runs every wired learner's native
// strategies end to end on data with NA and checks they learn the step.
// Block, prob and majority put the NA rows (whose mean is 1/2) into a
// leaf with observed rows, so the leaf means move by up to 1/2·20/(20+40):
// a tolerance of 0.2 admits that and nothing worse.
func TestNativeFamiliesPredictWithNA(t *testing.T) {
	X, y := stepData(400)
	test := mat.NewDense(3, 1, []float64{0.2, 0.8, math.NaN()})
	for _, name := range []string{"tree/mia", "tree/surrogate", "tree/block", "tree/prob", "tree/majority",
		"tree/mia-inf", "tree/mean+mask", "boost/mia", "boost/mean",
		"ctree/majority", "ctree/surrogate", "ctree/gaussian+mask", "knn/mean", "svm/gaussian+mask",
		"forest/mia", "forest/mean+mask", "forest/mia-inf"} {
		p, err := New(name, small(name), Env{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Fit(context.Background(), X, y, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pred, err := f.Predict(context.Background(), test)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Abs(pred[0]) > 0.2 || math.Abs(pred[1]-1) > 0.2 || math.IsNaN(pred[2]) {
			t.Errorf("%s: predictions %v, want ≈ 0, ≈ 1, finite", name, pred)
		}
	}
}

// small shrinks the ensembles so the test stays fast.
func small(name string) Settings {
	switch name[:strings.Index(name, "/")] {
	case Boost:
		return Settings{"rounds": 20}
	case Forest:
		return Settings{"trees": 50}
	}
	return nil
}

// TestRootSplitNamesInputVariables checks that a fitted tree names its
// first split in the input's terms, through imputation, MIA duplication
// and mask columns.
func TestRootSplitNamesInputVariables(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 600
	X := mat.NewDense(n, 2, nil)
	yStep, yMask := make([]float64, n), make([]float64, n)
	for i := range n {
		x1, x2 := r.Float64(), r.Float64()
		if x2 > 0.5 {
			yStep[i] = 1
		}
		if i%3 == 0 {
			x1 = math.NaN()
			yMask[i] = 5 // the target depends on M1 only
		}
		X.Set(i, 0, x1)
		X.Set(i, 1, x2)
	}
	cases := []struct {
		name string
		y    []float64
		want string
		ok   bool
	}{
		{"tree/surrogate", yStep, "X2", true},
		{"ctree/majority", yStep, "X2", true},
		{"tree/mean+mask", yMask, "M1", true},
		{"tree/mia", yMask, "X1", true},
		{"tree/mia-inf", yMask, "X1", true},
		{"linear/mean", yStep, "", false},
	}
	for _, c := range cases {
		p, err := New(c.name, Settings{"maxdepth": 1}.forTrees(c.name), Env{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Fit(context.Background(), X, c.y, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, thr, ok := f.RootSplit()
		if got != c.want || ok != c.ok {
			t.Errorf("%s: root split %q at %v (ok %v), want %q (ok %v)", c.name, got, thr, ok, c.want, c.ok)
		}
		if c.want == "X2" && math.Abs(thr-0.5) > 0.05 {
			t.Errorf("%s: threshold %v, want ≈ 0.5", c.name, thr)
		}
	}
}

// forTrees keeps s for tree-like pipelines only.
func (s Settings) forTrees(name string) Settings {
	if strings.HasPrefix(name, Tree+"/") || strings.HasPrefix(name, CTree+"/") {
		return s
	}
	return nil
}

// TestEveryFamilyHasTheSharedShape checks what the one adapter relies
// on: every family's fitted model predicts under a live context, returns
// the context's error under a cancelled one, and reports a root split
// exactly when it is a tree.
func TestEveryFamilyHasTheSharedShape(t *testing.T) {
	X, y := stepData(100)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, l := range Implemented() {
		name := l + "/mean"
		p, err := New(name, small(name), Env{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Fit(context.Background(), X, y, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		Xt, err := f.transform(X)
		if err != nil {
			t.Fatal(err)
		}
		if pred, err := f.model.Predict(context.Background(), Xt); err != nil || len(pred) != 100 {
			t.Errorf("%s: Predict = %d values, %v", name, len(pred), err)
		}
		if _, err := f.model.Predict(cancelled, Xt); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Predict under a cancelled context: %v, want context.Canceled", name, err)
		}
		_, isTree := f.model.(RootSplitter)
		if want := l == Tree || l == CTree; isTree != want {
			t.Errorf("%s: model implements RootSplitter = %v, want %v", name, isTree, want)
		}
	}
}

// TestAdaptFitUsesItsParams: a learner made by adaptFit fits what the
// package's Fit fits with the bound parameters, and returns the
// package's own model, not a copy.
func TestAdaptFitUsesItsParams(t *testing.T) {
	X, y := stepData(200)
	ctx := context.Background()
	p := tree.PaperDefaults()
	p.MinBucket, p.MinSplit, p.MaxDepth = 5, 10, 1
	got, err := adaptFit(tree.Fit, p).Fit(ctx, X, y, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tree.Fit(ctx, X, y, p, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := got.(*tree.Model)
	if !ok || !reflect.DeepEqual(m.Nodes(), want.Nodes()) || m.Depth() != 1 {
		t.Errorf("adaptFit(tree.Fit, p) fitted %T %+v, want tree.Fit's %+v (depth 1)", got, got, want.Nodes())
	}
	p.MinBucket = 0
	if _, err := adaptFit(tree.Fit, p).Fit(ctx, X, y, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrBadSetting) {
		t.Errorf("adaptFit with MinBucket 0: %v, want ErrBadSetting from tree.Fit", err)
	}
}

// TestEveryAcceptedSettingBuilds: each end of every family key's range,
// which ResolveSettings (and so a grid file) accepts, also builds the
// learner; a narrower check in the learner package would otherwise fail
// every job of a sweep the grid let through.
func TestEveryAcceptedSettingBuilds(t *testing.T) {
	for _, l := range Implemented() {
		ps, err := ParamsOf(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			for _, v := range []float64{p.Min, p.Max} {
				if _, err := New(l+"/mean", Settings{p.Key: v}, Env{}); err != nil {
					t.Errorf("%s/mean {%s = %v}: %v", l, p.Key, v, err)
				}
			}
		}
	}
}
